import { parseArgs } from "node:util";
import type { ApiKeyRecord, Store } from "@longrun/store";
import { openLog } from "./compose.ts";
import { commandHelp } from "./config/help.ts";
import type { Config } from "./config/load-config.ts";

/** What a revoke argument names: a key id, a unique prefix of one, or the token itself. */
async function resolveKey(
  store: Store,
  reference: string,
): Promise<{ key: ApiKeyRecord } | { problem: string; usage?: boolean }> {
  const keys = await store.apiKeys.list();
  const byToken = await store.apiKeys.verify(reference);
  const exact = keys.find((key) => key.id === reference || key.id === byToken?.keyId);
  if (exact) return { key: exact };
  const matches = keys.filter((key) => key.id.startsWith(reference));
  if (matches.length === 1 && matches[0]) return { key: matches[0] };
  if (matches.length === 0) return { problem: `no key matches ${reference} (\`longrun token list\`)` };
  return {
    problem: `${reference} matches ${matches.length} keys (${matches.map((key) => key.id).join(", ")}): give more of the id`,
    usage: true,
  };
}

function row(key: ApiKeyRecord): string[] {
  return [
    key.id,
    key.tenantId,
    key.admin ? "admin" : "",
    key.origin,
    `…${key.hint}`,
    new Date(key.createdAt).toISOString(),
    key.revokedAt === null ? "live" : `revoked ${new Date(key.revokedAt).toISOString()}`,
  ];
}

/** Lines of a plain table, columns padded to their widest cell. */
function formatTable(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((cells) => cells[column]?.length ?? 0)));
  return rows.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths?.[column] ?? 0))
      .join("  ")
      .trimEnd(),
  );
}

/**
 * `longrun token create|list|revoke`, straight on the database (no server needed): a revoked key is
 * refused by every server at once, since they all verify against this database.
 */
export async function runTokenCommand(args: string[], config: () => Config): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { tenant: { type: "string" }, admin: { type: "boolean" } },
    allowPositionals: true,
  });
  const [action, reference, ...extra] = positionals;
  const arity = action === "revoke" ? 2 : 1;
  if (
    !action ||
    !["create", "list", "revoke"].includes(action) ||
    positionals.length !== arity ||
    extra.length
  ) {
    console.error(`unknown token command: ${positionals.join(" ") || "(none)"}\n\n${commandHelp("token")}`);
    return 2;
  }
  const store = await openLog(config());
  try {
    if (action === "create") {
      const { token } = await store.apiKeys.create(values.tenant ?? "default", undefined, {
        admin: values.admin ?? false,
      });
      console.log(token);
      return 0;
    }
    if (action === "list") {
      const header = ["id", "tenant", "scope", "origin", "token", "created", "state"];
      for (const line of formatTable([header, ...(await store.apiKeys.list()).map(row)])) console.log(line);
      return 0;
    }
    const resolved = await resolveKey(store, reference ?? "");
    if ("problem" in resolved) {
      console.error(resolved.problem);
      return resolved.usage ? 2 : 1;
    }
    const { key } = resolved;
    if (!(await store.apiKeys.revoke(key.id))) {
      console.error(`key ${key.id} (tenant ${key.tenantId}) was already revoked`);
      return 1;
    }
    console.log(`revoked key ${key.id} (tenant ${key.tenantId}, token …${key.hint})`);
    return 0;
  } finally {
    await store.close();
  }
}
