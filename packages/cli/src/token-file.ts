import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Store } from "@longrun/store";
import { StartupError } from "./startup-error.ts";

export const DEFAULT_TENANT = "default";

/** The operator's token and what registering it changed. */
export interface OperatorToken {
  token: string;
  /** Lines to print: keys of the same origin revoked because the token changed. */
  notices: string[];
}

/**
 * The operator's token (an admin key of the default tenant): LONGRUN_TOKEN if set, else the one kept in
 * the data dir, else a new one written there (mode 0600) on first start. Registering it revokes the
 * previous key of the same origin, so a changed LONGRUN_TOKEN retires the old one at once.
 */
export async function ensureToken(
  store: Store,
  dataDir: string,
  configured: string | undefined,
  role: string,
): Promise<OperatorToken> {
  if (configured) {
    const adopted = await store.apiKeys.adopt(DEFAULT_TENANT, configured, "env");
    if ("revoked" in adopted)
      throw new StartupError(role, [
        `LONGRUN_TOKEN: this token was revoked (key ${adopted.revoked}); set a new one`,
      ]);
    return { token: configured, notices: replacedNotices("LONGRUN_TOKEN changed", adopted.replaced) };
  }
  const file = join(dataDir, "token");
  // No saved token yet: one is generated below.
  const saved = (await readFile(file, "utf8").catch(() => "")).trim();
  if (saved) {
    const adopted = await store.apiKeys.adopt(DEFAULT_TENANT, saved, "generated");
    if ("id" in adopted)
      return { token: saved, notices: replacedNotices("token file changed", adopted.replaced) };
  }
  const { token } = await store.apiKeys.create(DEFAULT_TENANT, undefined, {
    origin: "generated",
    admin: true,
  });
  const adopted = await store.apiKeys.adopt(DEFAULT_TENANT, token, "generated");
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  const why = saved ? "the saved token was revoked; a new one was generated" : "token generated";
  return { token, notices: replacedNotices(why, "id" in adopted ? adopted.replaced : []) };
}

function replacedNotices(why: string, replaced: string[]): string[] {
  return replaced.map((id) => `${why}: the previous token (key ${id}) is revoked`);
}
