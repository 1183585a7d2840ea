import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, rmdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository root (npm workspaces resolve from here). */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DIST_INDEX = join(REPO_ROOT, "apps/dashboard/dist/index.html");
/** What the bundle is built from: the app and the workspace packages it imports. */
const SOURCES = [
  "apps/dashboard/src",
  "apps/dashboard/index.html",
  "apps/dashboard/vite.config.ts",
  "packages/client/src",
  "packages/protocol/src",
].map((path) => join(REPO_ROOT, path));
const LOCK_DIR = join(tmpdir(), "longrun-dashboard-build.lock");
const LOCK_STALE_MS = 180_000;

async function newestMtime(path: string): Promise<number> {
  if (!existsSync(path)) return 0;
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, entry)));
  return newest;
}

/** True when dist/index.html is missing or older than any source it is built from. */
export async function dashboardIsStale(): Promise<boolean> {
  if (!existsSync(DIST_INDEX)) return true;
  const built = (await stat(DIST_INDEX)).mtimeMs;
  const sources = await Promise.all(SOURCES.map(newestMtime));
  return sources.some((mtime) => mtime > built);
}

async function takeLock(): Promise<void> {
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      await mkdir(LOCK_DIR);
      return;
    } catch {
      // Another test file is building; a lock older than a build can take is left over from a crash.
      const age = await stat(LOCK_DIR).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (age > LOCK_STALE_MS || Date.now() > deadline) await rmdir(LOCK_DIR).catch(() => undefined);
      else await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** Builds the production dashboard (`npm run build -w @longrun/dashboard`) when it is missing or stale. */
export async function ensureDashboardBuilt(): Promise<{ built: boolean; ms: number }> {
  const started = Date.now();
  if (!(await dashboardIsStale())) return { built: false, ms: 0 };
  await takeLock();
  try {
    if (!(await dashboardIsStale())) return { built: false, ms: Date.now() - started };
    await run("npm", ["run", "build", "-w", "@longrun/dashboard"], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
      timeout: 170_000,
    });
    return { built: true, ms: Date.now() - started };
  } finally {
    await rmdir(LOCK_DIR).catch(() => undefined);
  }
}
