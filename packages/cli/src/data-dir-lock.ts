import { rmSync } from "node:fs";
import { mkdir, open, readdir, readFile, rm, stat, unlink, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { StartupError } from "./startup-error.ts";

/** The commands that run on a data dir, and the mode each belongs to. */
export type DataDirRole = "start" | "serve" | "worker";
type Mode = "embedded" | "distributed";

/** One process holding the data dir, as its file in `<data dir>/locks/` records it. */
interface Holder {
  pid: number;
  host: string;
  mode: Mode;
  role: DataDirRole;
  startedAt: string;
}

export interface DataDirLock {
  /** Lines to print: stale locks taken over. */
  notices: string[];
  /** Removes this process's entry (on shutdown). */
  release(): Promise<void>;
}

export interface LockTimings {
  /** How often a holder touches its file, so other hosts can tell it is alive. Default 20 s. */
  refreshMs: number;
  /** A holder on another host whose file is older than this is gone. Default 90 s. */
  staleMs: number;
}

const DEFAULT_TIMINGS: LockTimings = { refreshMs: 20_000, staleMs: 90_000 };
const MUTEX = ".mutex";
/** The mutex is held for a few file operations; one older than this was left by a crash. */
const MUTEX_STALE_MS = 10_000;

/** Entries this process holds: an entry of our own pid that is not here was left by an earlier process. */
const heldHere = new Set<string>();
let entryCount = 0;

const modeOf = (role: DataDirRole): Mode => (role === "start" ? "embedded" : "distributed");

function describeHolder(holder: Holder): string {
  return `pid ${holder.pid} on host ${holder.host} (${holder.mode} mode, longrun ${holder.role}, started ${holder.startedAt})`;
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function isAlive(path: string, name: string, holder: Holder, timings: LockTimings): Promise<boolean> {
  if (holder.host !== hostname()) {
    const touched = await stat(path).then(
      (info) => info.mtimeMs,
      () => 0,
    );
    return Date.now() - touched < timings.staleMs;
  }
  if (holder.pid === process.pid) return heldHere.has(name);
  return pidAlive(holder.pid);
}

/** Runs `task` while holding `<dir>/.mutex` (created exclusively); waits for another holder to finish. */
async function withMutex<T>(dir: string, task: () => Promise<T>): Promise<T> {
  const path = join(dir, MUTEX);
  for (;;) {
    const handle = await open(path, "wx").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return null;
      throw error;
    });
    if (handle) {
      await handle.close();
      try {
        return await task();
      } finally {
        // Already gone, or removed as stale by another process: nothing to undo.
        await unlink(path).catch(() => undefined);
      }
    }
    const age = await stat(path).then(
      (info) => Date.now() - info.mtimeMs,
      () => 0,
    );
    // Another process removed it first: either way the next pass tries again.
    if (age > MUTEX_STALE_MS) await unlink(path).catch(() => undefined);
    else await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Registers this process on the data dir. Refuses (StartupError, naming the holder) when a live process
 * runs it in the other mode, or when either is embedded: two embedded servers on one dir take each
 * other's runs. Distributed processes (serve + workers) share it by design. An entry whose process is
 * gone (its pid is dead on this host, or another host stopped refreshing it) is taken over with a notice.
 */
export async function acquireDataDirLock(
  dataDir: string,
  role: DataDirRole,
  timings: LockTimings = DEFAULT_TIMINGS,
): Promise<DataDirLock> {
  const dir = join(dataDir, "locks");
  await mkdir(dir, { recursive: true });
  const mode = modeOf(role);
  const me: Holder = { pid: process.pid, host: hostname(), mode, role, startedAt: new Date().toISOString() };
  entryCount += 1;
  const name = `${me.host}-${me.pid}-${entryCount}.json`;
  const path = join(dir, name);
  const notices = await withMutex(dir, async () => {
    const found: string[] = [];
    for (const entry of (await readdir(dir)).filter((file) => file.endsWith(".json"))) {
      const entryPath = join(dir, entry);
      const holder = await readFile(entryPath, "utf8").then(
        (text) => JSON.parse(text) as Holder,
        () => null,
      );
      if (!holder) continue;
      if (!(await isAlive(entryPath, entry, holder, timings))) {
        await rm(entryPath, { force: true });
        found.push(
          `LONGRUN_DATA_DIR ${dataDir}: took over the stale lock of ${describeHolder(holder)}: that process is gone`,
        );
        continue;
      }
      if (holder.mode === "embedded" || mode === "embedded")
        throw new StartupError(role, [
          `LONGRUN_DATA_DIR ${dataDir} is in use by ${describeHolder(holder)}; stop it first, or give this process its own LONGRUN_DATA_DIR`,
        ]);
    }
    const handle = await open(path, "wx");
    await handle.writeFile(`${JSON.stringify(me)}\n`);
    await handle.close();
    heldHere.add(name);
    return found;
  });
  const refresh = setInterval(() => {
    const now = new Date();
    // The next refresh tries again; a lock left unrefreshed is only taken over once stale.
    void utimes(path, now, now).catch(() => undefined);
  }, timings.refreshMs);
  refresh.unref();
  const onExit = () => {
    // A process that exits without release (process.exit after a fatal error) leaves no live-looking entry.
    rmSync(path, { force: true });
  };
  process.once("exit", onExit);
  return {
    notices,
    async release() {
      clearInterval(refresh);
      process.off("exit", onExit);
      heldHere.delete(name);
      await rm(path, { force: true });
    },
  };
}
