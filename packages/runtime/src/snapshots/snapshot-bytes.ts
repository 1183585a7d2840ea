import { readAll } from "../tools/text-file.ts";
import { ToolError } from "../tools/types.ts";
import type { ResolvedPath, Workspace } from "../tools/workspace.ts";

/** Largest file content read into memory for a snapshot (64 MiB). */
const SNAPSHOT_READ_MAX_BYTES = 64 * 1024 * 1024;

/**
 * A workspace file's bytes as they are now, for a snapshot: null when there is no file, undefined when
 * it cannot be read (not a readable file, or over 64 MiB — a huge file is not read into memory, its
 * content stays unknown).
 */
export async function snapshotBytes(
  workspace: Workspace,
  target: ResolvedPath,
): Promise<Uint8Array | null | undefined> {
  let handle: Awaited<ReturnType<Workspace["openFile"]>>;
  try {
    handle = await workspace.openFile(target);
  } catch (error) {
    // No file there is an answer; anything else leaves the content unknown.
    return ToolError.hasCode(error, "not_found") ? null : undefined;
  }
  try {
    if ((await handle.stat()).size > SNAPSHOT_READ_MAX_BYTES) return undefined;
    return await readAll(handle);
  } finally {
    await handle.close();
  }
}
