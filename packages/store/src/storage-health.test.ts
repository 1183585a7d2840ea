import { mkdir, mkdtemp, rename, rm, stat, truncate } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LibsqlError } from "@libsql/client";
import { LongrunError } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openStore, type Store } from "./open-store.ts";
import { createStorageHealth } from "./storage-health.ts";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function storeInTempDir(): Promise<{ store: Store; dir: string; root: string }> {
  const root = await mkdtemp(join(tmpdir(), "longrun-health-"));
  const dir = join(root, "data");
  await mkdir(dir);
  const store = await openStore({ url: join(dir, "longrun.db"), dataDir: dir });
  cleanups.push(async () => {
    await store.close();
    await rm(root, { recursive: true, force: true });
  });
  return { store, dir, root };
}

const codeOf = (error: unknown) => (LongrunError.isInstance(error) ? error.code : String(error));

describe("storage health", () => {
  it("refuses every access while the data folder is renamed away, and serves again when it is back", async () => {
    const { store, dir } = await storeInTempDir();
    const lines: string[] = [];
    const log = vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(line));
    cleanups.push(async () => log.mockRestore());
    expect(await store.storageProblem()).toBeNull();
    await rename(dir, `${dir}.moved`);
    for (let i = 0; i < 3; i++)
      expect(codeOf(await store.ping().catch((e: unknown) => e))).toBe("storage_unavailable");
    expect(await store.storageProblem()).toMatch(/data folder .* is gone/);
    await rename(`${dir}.moved`, dir);
    expect(await store.storageProblem()).toBeNull();
    await store.ping();
    // Once each way, however many accesses met the fault.
    expect(lines).toEqual([
      expect.stringMatching(/^\[store\] storage unavailable: /),
      "[store] storage available again",
    ]);
  });

  it("refuses a truncated -shm before libSQL maps it (which would end the process by SIGBUS)", async () => {
    const { store, dir } = await storeInTempDir();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const shm = join(dir, "longrun.db-shm");
    const size = (await stat(shm)).size;
    await truncate(shm, 100);
    const refused = await store.threads.get("t-1").catch((error: unknown) => error);
    expect(codeOf(refused)).toBe("storage_unavailable");
    expect((refused as Error).message).toMatch(/-shm is truncated \(100 bytes/);
    await truncate(shm, size);
    expect(await store.storageProblem()).toBeNull();
  });

  it("turns a storage error of a statement into storage_unavailable, and leaves other errors alone", async () => {
    const root = await mkdtemp(join(tmpdir(), "longrun-health-"));
    cleanups.push(() => rm(root, { recursive: true, force: true }));
    const health = createStorageHealth({
      dirs: [root],
      file: null,
      probeWrite: async () => {},
      log: () => {},
    });
    const ioError = new LibsqlError("disk I/O error", "SQLITE_IOERR_WRITE");
    expect(codeOf(health.failure(ioError))).toBe("storage_unavailable");
    const constraint = new LibsqlError("UNIQUE constraint failed", "SQLITE_CONSTRAINT_UNIQUE");
    expect(health.failure(constraint)).toBe(constraint);
    // The folders are fine, so the next access checks again and finds the storage back.
    await health.guard();
  });
});
