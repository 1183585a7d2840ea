import { mkdir, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { LongrunError } from "@longrun/protocol";
import type { Store } from "@longrun/store";

/**
 * A thread's workspace: a new folder under the data dir, or an existing folder strictly inside one of
 * the allowed roots (LONGRUN_WORKSPACE_ROOTS) that no other tenant's thread uses — the same folder, one
 * inside it or one around it. Anything else is refused.
 */
export async function resolveWorkspace(
  requested: string | undefined,
  options: { dataDir: string; roots: string[]; threadId: string; tenantId: string; store: Store },
): Promise<{ dir: string; named: boolean }> {
  if (!requested) {
    const dir = resolve(options.dataDir, "workspaces", options.threadId);
    await createInsideDataDir(options.dataDir, dir);
    return { dir, named: false };
  }
  if (options.roots.length === 0)
    throw new LongrunError(
      "forbidden",
      "named workspaces are disabled: set LONGRUN_WORKSPACE_ROOTS to allow folders",
    );
  let real: string;
  try {
    real = await realpath(resolve(requested));
    if (!(await stat(real)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new LongrunError("bad_request", `workspace ${requested} is not an existing folder`);
  }
  let insideRoot = false;
  for (const root of options.roots) {
    // A root that does not exist (yet) holds no workspace.
    const realRoot = await realpath(resolve(root)).catch(() => null);
    if (!realRoot) continue;
    if (real === realRoot)
      throw new LongrunError(
        "forbidden",
        `workspace ${requested} is a workspace root itself; name a folder inside it`,
      );
    if (isInside(realRoot, real)) insideRoot = true;
  }
  if (!insideRoot)
    throw new LongrunError("forbidden", `workspace ${requested} is outside LONGRUN_WORKSPACE_ROOTS`);
  const users = await options.store.threads.workspaceTenants(real);
  // The message names only the requested path: never who else uses it.
  if (users.some((tenantId) => tenantId !== options.tenantId))
    throw new LongrunError(
      "forbidden",
      `workspace ${requested} is not available: another tenant uses it, a folder inside it or one around it`,
    );
  return { dir: real, named: true };
}

/**
 * Creates `<data dir>/workspaces/<thread>` one level at a time, never the data dir itself: a data dir
 * renamed or removed under a running process is a storage fault to report, not a tree to re-create
 * empty at the old path while the database lives on elsewhere.
 */
async function createInsideDataDir(dataDir: string, dir: string): Promise<void> {
  try {
    await mkdir(dirname(dir)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
    await mkdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "is gone (renamed or removed)" : `cannot be written (${code})`;
    throw new LongrunError(
      "storage_unavailable",
      `storage unavailable: data folder ${resolve(dataDir)} ${why}`,
    );
  }
}

/** True when `path` is strictly below `root` (a folder named `..something` inside counts as inside). */
export function isInside(root: string, path: string): boolean {
  const inside = relative(root, path);
  if (inside === "" || isAbsolute(inside)) return false;
  const first = inside.split(sep)[0];
  return first !== "..";
}
