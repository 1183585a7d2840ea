import { accessSync, constants, statSync } from "node:fs";
import { unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { LongrunError } from "@longrun/protocol";

/**
 * SQLite's wal-index (`-shm`) grows in 32 KiB regions and is mapped into memory: a file shorter than
 * what is mapped makes the next access die of SIGBUS (nothing logged, no error to catch). It is
 * checked before every access instead.
 */
const SHM_REGION_BYTES = 32 * 1024;
/** A probe that waits longer than this (behind a long transaction) says nothing new: the state stays. */
const PROBE_LIMIT_MS = 800;
/** While unavailable, accesses re-check at most this often (they share one check). */
const RECHECK_MS = 200;

/** What the health of a store watches: folders by identity, the database file and its WAL files. */
export interface StorageHealthOptions {
  /** Folders that must stay the ones the process started with (the data dir, the database's folder). */
  dirs: string[];
  /** The local database file (null: a remote database, only the folders are watched). */
  file: string | null;
  /** A small real write to the database, unguarded (the readiness probe). */
  probeWrite(): Promise<void>;
  /** One line per change of state (default: stderr). */
  log?: (line: string) => void;
}

/** The store's view of its storage: guards each access, probes for readiness, names faults. */
export interface StorageHealth {
  /** Before each access: throws `storage_unavailable` while a fault stands (re-checked as it goes). */
  guard(): Promise<void>;
  /** The full check, bounded: null when the storage is usable, else what is wrong. */
  check(): Promise<string | null>;
  /** A failed statement: a storage fault comes back as `storage_unavailable`, anything else as is. */
  failure(error: unknown): unknown;
}

interface Identity {
  dev: number;
  ino: number;
}

const identityOf = (path: string): Identity => {
  const stats = statSync(path);
  return { dev: stats.dev, ino: stats.ino };
};

/** Starts watching; the folders and file are taken as they are now. */
export function createStorageHealth(options: StorageHealthOptions): StorageHealth {
  const log = options.log ?? ((line: string) => console.error(line));
  // A folder that does not exist yet (a command that only reads the database) is not watched.
  const dirs = [...new Set(options.dirs)].flatMap((dir) => {
    try {
      return [{ dir, identity: identityOf(dir) }];
    } catch {
      // See above: a folder that is not there is not watched.
      return [];
    }
  });
  const file = options.file;
  let problem: string | null = null;
  let lastCheck = 0;
  let checking: Promise<string | null> | null = null;

  const settle = (found: string | null): string | null => {
    // One line per change of state, however many requests meet the fault (its wording may vary).
    if ((found === null) !== (problem === null)) {
      log(
        found === null
          ? "[store] storage available again"
          : `[store] storage unavailable: ${found} (refusing reads and writes until it is back)`,
      );
    }
    problem = found;
    return found;
  };

  /** Cheap (a few stat/access calls): run before every access, so a fault is refused, not hit. */
  const quick = (): string | null => {
    for (const { dir, identity } of dirs) {
      let now: Identity;
      try {
        now = identityOf(dir);
      } catch (error) {
        return `data folder ${dir} is gone (${(error as NodeJS.ErrnoException).code ?? "unreadable"}); it was renamed or removed`;
      }
      if (now.dev !== identity.dev || now.ino !== identity.ino)
        return `data folder ${dir} is not the folder this process started with (renamed or replaced)`;
    }
    if (file === null) return null;
    for (const [path, required] of [
      [file, true],
      [`${file}-wal`, false],
      [`${file}-shm`, true],
    ] as const) {
      try {
        accessSync(path, constants.W_OK);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT" && !required) continue;
        return code === "ENOENT" ? `${path} is missing` : `${path} is not writable (${code})`;
      }
    }
    const shmBytes = statSync(`${file}-shm`).size;
    if (shmBytes < SHM_REGION_BYTES || shmBytes % SHM_REGION_BYTES !== 0)
      return `${file}-shm is truncated (${shmBytes} bytes; libSQL maps it in ${SHM_REGION_BYTES}-byte regions)`;
    return null;
  };

  const full = async (): Promise<string | null> => {
    const fast = quick();
    if (fast) return fast;
    for (const { dir } of dirs) {
      const probe = join(dir, `.storage-probe-${process.pid}`);
      try {
        await writeFile(probe, "probe");
        await unlink(probe);
      } catch (error) {
        return `data folder ${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? error})`;
      }
    }
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      options.probeWrite().then(
        () => null,
        (error: unknown) => (isStorageFault(error) ? `database write failed: ${describe(error)}` : null),
      ),
      new Promise<"slow">((resolve) => {
        timer = setTimeout(() => resolve("slow"), PROBE_LIMIT_MS);
      }),
    ]);
    clearTimeout(timer);
    return outcome === "slow" ? problem : outcome;
  };

  const check = (): Promise<string | null> => {
    checking ??= full()
      .then(settle)
      .finally(() => {
        lastCheck = Date.now();
        checking = null;
      });
    return checking;
  };

  const unavailable = (found: string) =>
    new LongrunError("storage_unavailable", `storage unavailable: ${found}`);

  return {
    async guard() {
      if (problem === null) {
        const found = quick();
        if (found === null) return;
        throw unavailable(settle(found) ?? found);
      }
      const found = Date.now() - lastCheck < RECHECK_MS ? problem : await check();
      if (found !== null) throw unavailable(found);
    },
    check,
    failure(error) {
      if (LongrunError.isInstance(error) || !isStorageFault(error)) return error;
      const found = quick() ?? `database write failed: ${describe(error)}`;
      settle(found);
      return unavailable(found);
    },
  };
}

/** SQLite and file-system errors that mean the storage itself failed, not the statement. */
function isStorageFault(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== "object") break;
    const record = current as { code?: unknown; message?: unknown; cause?: unknown };
    const code = typeof record.code === "string" ? record.code : "";
    if (/SQLITE_(IOERR|READONLY|CANTOPEN|FULL)|^E(ROFS|ACCES|PERM|NOSPC|IO)$/.test(code)) return true;
    const message = typeof record.message === "string" ? record.message : "";
    if (
      /disk I\/O error|readonly database|unable to open database file|database or disk is full/i.test(message)
    )
      return true;
    current = record.cause;
  }
  return false;
}

function describe(error: unknown): string {
  const record = error as { code?: unknown; message?: unknown };
  const code = typeof record?.code === "string" ? `${record.code}: ` : "";
  return `${code}${typeof record?.message === "string" ? record.message : String(error)}`;
}
