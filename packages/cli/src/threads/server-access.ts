import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** Where a client command finds its server and token. */
export interface ServerAccess {
  url: string;
  token: string | null;
}

/**
 * `--url`, else `LONGRUN_URL`, else `http://127.0.0.1:$PORT`; `--token`, else `LONGRUN_TOKEN`, else the
 * token `longrun start` keeps in the data dir (so the first commands work from the repository untouched).
 */
export async function serverAccess(
  flags: { url?: string | undefined; token?: string | undefined },
  env: NodeJS.ProcessEnv,
): Promise<ServerAccess> {
  const url = (flags.url ?? env.LONGRUN_URL ?? `http://127.0.0.1:${env.PORT || 8787}`).replace(/\/+$/, "");
  if (flags.token) return { url, token: flags.token };
  if (env.LONGRUN_TOKEN) return { url, token: env.LONGRUN_TOKEN };
  const file = join(env.LONGRUN_DATA_DIR || ".longrun", "token");
  // No token file: the caller says that no token was found.
  const stored = (await readFile(file, "utf8").catch(() => "")).trim();
  return { url, token: stored || null };
}
