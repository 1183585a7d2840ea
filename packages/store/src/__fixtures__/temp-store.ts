import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store, type StoreOptions } from "../open-store.ts";

/** A store on a fresh file in its own temp dir, for this package's tests. */
export async function tempStore(
  options: Omit<StoreOptions, "url"> = {},
): Promise<{ store: Store; dir: string; url: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "longrun-store-"));
  const url = join(dir, "longrun.db");
  const store = await openStore({ ...options, url });
  return {
    store,
    dir,
    url,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
