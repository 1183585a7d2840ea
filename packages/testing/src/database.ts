import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store, type StoreOptions } from "@longrun/store";

/** A migrated store on a fresh libSQL file in its own temp dir. */
export interface TempStore {
  store: Store;
  /** Path of the database file (pass it as `url` to open the same file from another store or process). */
  url: string;
  dir: string;
  /** Closes the store and removes the temp dir; safe to call twice. */
  cleanup: () => Promise<void>;
}

/** Creates a temporary store for a test; call `cleanup` in `afterEach`/`finally`. */
export async function createTempStore(options: Pick<StoreOptions, "countTokens"> = {}): Promise<TempStore> {
  const dir = await mkdtemp(join(tmpdir(), "longrun-test-db-"));
  const url = join(dir, "longrun.db");
  let store: Store;
  try {
    store = await openStore({ url, ...options });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  let cleaned = false;
  return {
    store,
    url,
    dir,
    cleanup: async () => {
      if (cleaned) return;
      cleaned = true;
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
