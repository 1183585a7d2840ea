import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Store } from "@longrun/store";

export const DEFAULT_TENANT = "default";

/**
 * Embedded mode's token: LONGRUN_TOKEN if set (registered for the default tenant), else the one kept
 * in the data dir, else a new one written there (mode 0600) on first start.
 */
export async function ensureToken(store: Store, dataDir: string, configured?: string): Promise<string> {
  if (configured) {
    if (!(await store.apiKeys.verify(configured))) await store.apiKeys.create(DEFAULT_TENANT, configured);
    return configured;
  }
  const file = join(dataDir, "token");
  const saved = (await readFile(file, "utf8").catch(() => "")).trim();
  if (saved && (await store.apiKeys.verify(saved))) return saved;
  const { token } = await store.apiKeys.create(DEFAULT_TENANT);
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}
