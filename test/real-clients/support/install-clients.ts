import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { watch } from "node:fs";
import { access, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The real clients (Codex CLI, opencode, Claude Code, pi, qwen-code: ~1.4 GB) are not part of the repository's
 * `npm install`. They live in their own package folder with its own lockfile and are installed
 * there the first time a real-client test needs them. `npm install --no-save` rather than `npm ci`:
 * the lockfile pins every package that installs here (exact versions and integrity), but not
 * opencode-ai's optional binaries for other platforms, and `npm ci` refuses a lockfile without them.
 */
export const CLIENTS_DIR = fileURLToPath(new URL("../clients/", import.meta.url));
const LOCKFILE = join(CLIENTS_DIR, "package-lock.json");
/** Written after a successful install: the hash of the lockfile it installed. */
const INSTALLED_STAMP = join(CLIENTS_DIR, "node_modules", ".longrun-installed");
/** Held (mkdir is atomic) by the one test process that installs; the others wait for it. */
const INSTALL_LOCK = join(CLIENTS_DIR, ".installing");

/** How long one install may take, for the beforeAll hooks that await it. */
export const CLIENT_INSTALL_TIMEOUT_MS = 900_000;

/** The real clients the tests drive. */
export type RealClient = "codex" | "opencode" | "claude" | "pi" | "qwen";

/**
 * A real client's entry point inside the clients folder: a native executable (opencode, Claude Code)
 * or a Node script that runs under this test's own node (Codex, pi, qwen-code).
 */
export function clientBinary(client: RealClient): string {
  const modules = join(CLIENTS_DIR, "node_modules");
  switch (client) {
    case "codex":
      return join(modules, "@openai", "codex", "bin", "codex.js");
    case "opencode":
      // opencode-ai's postinstall (allowed in the clients' package.json) puts the platform binary here.
      return join(modules, "opencode-ai", "bin", "opencode.exe");
    case "claude":
      // So does @anthropic-ai/claude-code's (a native binary since 2.x, from its platform package).
      return join(modules, "@anthropic-ai", "claude-code", "bin", "claude.exe");
    case "pi":
      return join(modules, "@mariozechner", "pi-coding-agent", "dist", "cli.js");
    case "qwen":
      return join(modules, "@qwen-code", "qwen-code", "cli-entry.js");
  }
}

/**
 * Installs the real clients from their lockfile unless this lockfile is already installed. Test
 * files running in parallel call it together: one installs (printing npm's progress), the others
 * wait for its stamp.
 */
export async function installRealClients(): Promise<void> {
  const wanted = createHash("sha256")
    .update(await readFile(LOCKFILE))
    .digest("hex");
  for (;;) {
    if ((await installedLockHash()) === wanted) return;
    if (await takeLock()) {
      try {
        if ((await installedLockHash()) !== wanted) await runNpmInstall(wanted);
      } finally {
        await rm(INSTALL_LOCK, { recursive: true, force: true });
      }
      return;
    }
    await lockReleased();
  }
}

async function installedLockHash(): Promise<string | undefined> {
  return readFile(INSTALLED_STAMP, "utf8").then(
    (text) => text.trim(),
    () => undefined,
  );
}

/** Takes the install lock, or says another live process holds it (a dead holder's lock is removed). */
async function takeLock(): Promise<boolean> {
  try {
    await mkdir(INSTALL_LOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const holder = Number(await readFile(join(INSTALL_LOCK, "pid"), "utf8").catch(() => "NaN"));
    if (Number.isInteger(holder) && !isAlive(holder)) {
      await rm(INSTALL_LOCK, { recursive: true, force: true });
      return takeLock();
    }
    return false;
  }
  await writeFile(join(INSTALL_LOCK, "pid"), String(process.pid));
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
function lockReleased(): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(CLIENTS_DIR, () => check());
    // A holder that dies without removing its lock sends no event: look at its pid now and then.
    const deadHolderCheck = setInterval(check, 5_000);
    function check(): void {
      void readFile(join(INSTALL_LOCK, "pid"), "utf8").then(
        (pid) => {
          if (!isAlive(Number(pid))) done();
        },
        // No pid file: the lock is gone, or its holder has not written its pid yet (then keep waiting).
        () =>
          void access(INSTALL_LOCK).catch(() => {
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

/** npm in the clients folder, its output passed through line by line with a prefix. */
async function runNpmInstall(lockHash: string): Promise<void> {
  const started = Date.now();
  const say = (line: string) => process.stderr.write(`[real clients] ${line}\n`);
  say(
    `installing Codex CLI, opencode, Claude Code, pi and qwen-code (~1.4 GB, once) into ${CLIENTS_DIR} from its lockfile`,
  );
  // The user's shell environment, not the one npm gave this test run (its workspace settings, its
  // node options) — the clients folder is a project of its own.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("npm_") && name !== "NODE_OPTIONS"),
  );
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn("npm", ["install", "--no-save", "--no-audit", "--no-fund", "--loglevel=http"], {
      cwd: CLIENTS_DIR,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
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
  if (code !== 0) throw new Error(`npm install in ${CLIENTS_DIR} exited with ${code}`);
  await writeFile(INSTALLED_STAMP, `${lockHash}\n`);
  say(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
