import { mkdir, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { LongrunError } from "@longrun/protocol";

/**
 * A thread's workspace: a new folder under the data dir, or an existing folder inside one of the
 * allowed roots (LONGRUN_WORKSPACE_ROOTS). Anything else is refused.
 */
export async function resolveWorkspace(
  requested: string | undefined,
  options: { dataDir: string; roots: string[]; threadId: string },
): Promise<string> {
  if (!requested) {
    const dir = resolve(options.dataDir, "workspaces", options.threadId);
    await mkdir(dir, { recursive: true });
    return dir;
  }
  let real: string;
  try {
    real = await realpath(resolve(requested));
    if (!(await stat(real)).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new LongrunError("bad_request", `workspace ${requested} is not an existing folder`);
  }
  for (const root of options.roots) {
    const realRoot = await realpath(resolve(root)).catch(() => null);
    if (!realRoot) continue;
    const inside = relative(realRoot, real);
    if (!inside.startsWith("..") && !isAbsolute(inside)) return real;
  }
  throw new LongrunError(
    "forbidden",
    options.roots.length === 0
      ? "named workspaces are disabled: set LONGRUN_WORKSPACE_ROOTS to allow folders"
      : `workspace ${requested} is outside LONGRUN_WORKSPACE_ROOTS (${options.roots.join(", ")})`,
  );
}

export function defaultWorkspaceParent(dataDir: string): string {
  return join(dataDir, "workspaces");
}
