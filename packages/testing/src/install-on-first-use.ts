import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { watch } from "node:fs";
import { access, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * A folder with its own package.json and package-lock.json whose packages the repository's
 * `npm install` leaves out (real coding-agent clients, the bench's comparison libraries, Redocly,
 * Biome): installed there from its lockfile the first time something needs it.
 */
export interface FirstUseFolder {
  /** Absolute path of the folder. */
  dir: string;
  /** What it holds and roughly how big, for the first progress line: "Redocly's CLI (~25 MB)". */
  what: string;
  /** Prefix of every progress line: "[redocly]". */
  label: string;
  /**
   * npm's command and flags; `ci` unless the lockfile cannot be complete (the real clients' cannot:
   * opencode-ai's binaries for other platforms are missing from it, and `npm ci` refuses that).
   */
  npmCommand?: string[];
}

/** How long one install may take, for the hooks that await it. */
export const FIRST_USE_INSTALL_TIMEOUT_MS = 900_000;

/** Written after a successful install: the hash of the lockfile it installed. */
function installedStamp(folder: FirstUseFolder): string {
  return join(folder.dir, "node_modules", ".longrun-installed");
}

/** Held (mkdir is atomic) by the one process that installs; the others wait for it. */
function installLock(folder: FirstUseFolder): string {
  return join(folder.dir, ".installing");
}

/**
 * Installs the folder's packages from its lockfile unless this lockfile is already installed.
 * Processes calling it together (test files in parallel, turbo's tasks): one installs, printing npm's
 * progress, the others wait for its stamp.
 */
export async function installOnFirstUse(folder: FirstUseFolder): Promise<void> {
  const wanted = createHash("sha256")
    .update(await readFile(join(folder.dir, "package-lock.json")))
    .digest("hex");
  for (;;) {
    if ((await installedLockHash(folder)) === wanted) return;
    if (await takeLock(folder)) {
      try {
        if ((await installedLockHash(folder)) !== wanted) await runNpm(folder, wanted);
      } finally {
        await rm(installLock(folder), { recursive: true, force: true });
      }
      return;
    }
    await lockReleased(folder);
  }
}

async function installedLockHash(folder: FirstUseFolder): Promise<string | undefined> {
  return readFile(installedStamp(folder), "utf8").then(
    (text) => text.trim(),
    () => undefined,
  );
}

/** Takes the install lock, or says another live process holds it (a dead holder's lock is removed). */
async function takeLock(folder: FirstUseFolder): Promise<boolean> {
  const lock = installLock(folder);
  try {
    await mkdir(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number(await readFile(join(lock, "pid"), "utf8").catch(() => "NaN"));
    if (Number.isInteger(holder) && !isAlive(holder)) {
      await rm(lock, { recursive: true, force: true });
      return takeLock(folder);
    }
    return false;
  }
  await writeFile(join(lock, "pid"), String(process.pid));
  return true;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Resolves when the lock folder is gone (the holder finished, or failed and the caller retries). */
function lockReleased(folder: FirstUseFolder): Promise<void> {
  const lock = installLock(folder);
  return new Promise((resolve) => {
    const watcher = watch(folder.dir, () => check());
    // A holder that dies without removing its lock sends no event: look at its pid now and then.
    const deadHolderCheck = setInterval(check, 5_000);
    function check(): void {
      void readFile(join(lock, "pid"), "utf8").then(
        (pid) => {
          if (!isAlive(Number(pid))) done();
        },
        // No pid file: the lock is gone, or its holder has not written its pid yet (then keep waiting).
        () =>
          void access(lock).catch(() => {
            done();
          }),
      );
    }
    let ended = false;
    function done(): void {
      if (ended) return;
      ended = true;
      watcher.close();
      clearInterval(deadHolderCheck);
      resolve();
    }
    check();
  });
}

/** npm in the folder, its output passed through line by line with the folder's label. */
async function runNpm(folder: FirstUseFolder, lockHash: string): Promise<void> {
  const started = Date.now();
  const say = (line: string) => process.stderr.write(`${folder.label} ${line}\n`);
  say(`installing ${folder.what} into ${folder.dir} from its lockfile (once)`);
  // The user's shell environment, not the one npm gave this process (its workspace settings, its
  // node options): the folder is a project of its own.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") && name !== "NODE_OPTIONS"),
  );
  const command = folder.npmCommand ?? ["ci"];
  // --prefer-offline: what npm's cache holds is used without asking the registry, so a machine that
  // installed once installs again without a network.
  const args = [...command, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=http"];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn("npm", args, { cwd: folder.dir, env, stdio: ["ignore", "pipe", "pipe"] });
    let pending = "";
    const onData = (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) say(line);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("close", (exit) => {
      if (pending.trim()) say(pending);
      resolve(exit);
    });
  });
  if (code !== 0) throw new Error(`npm ${args.join(" ")} in ${folder.dir} exited with ${code}`);
  await writeFile(installedStamp(folder), `${lockHash}\n`);
  say(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
