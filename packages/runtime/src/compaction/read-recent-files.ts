import { contentHash } from "../snapshots/file-content.ts";
import { openWorkspace } from "../tools/workspace.ts";

const MAX_BYTES = 256 * 1024;

/** The snapshot of the agent's last write to a file (the version the agent last saw, if it saw none later). */
export interface SnapshotVersion {
  /** Seq of the write's tool result fact. */
  seq: number;
  /** Null: the write left no file. */
  hash: string | null;
  /** Null: over the snapshot size cap, or unknown. */
  bytes: Uint8Array | null;
}

/** A file read for restoration, and which version it is. */
export interface RecentFile {
  path: string;
  content: Uint8Array;
  readAt: number;
  version: string;
}

/** A file's current bytes (at most MAX_BYTES) and whether that is all of it; null when unreadable. */
async function readCurrent(
  workspace: Awaited<ReturnType<typeof openWorkspace>>,
  file: string,
): Promise<{ bytes: Uint8Array; whole: boolean } | null> {
  try {
    const handle = await workspace.openFile(await workspace.resolve(file));
    try {
      const buffer = Buffer.alloc(MAX_BYTES + 1);
      const { bytesRead } = await handle.read(buffer, 0, MAX_BYTES + 1, 0);
      return { bytes: buffer.subarray(0, Math.min(bytesRead, MAX_BYTES)), whole: bytesRead <= MAX_BYTES };
    } finally {
      await handle.close();
    }
  } catch {
    // A file deleted, unreadable or refused since it was read has no current version.
    return null;
  }
}

/**
 * Reads recently accessed workspace files for restoration. Each file is opened through the
 * workspace's verified descriptors, like the tools do: one swapped for a symlink to the outside (or
 * leading there) is skipped, never read into the model's context.
 *
 * With `lastWrite` (the snapshot of the agent's last write to a path, when that write is the last
 * thing the agent saw of it): a file changed or deleted outside the agent since is restored as that
 * snapshot, labelled `as of message #N`; otherwise the current file, labelled `current`.
 */
export async function readRecentFiles(
  workspaceDir: string,
  files: Array<{ path: string; readAt: number }>,
  limit = 8,
  lastWrite?: (path: string) => Promise<SnapshotVersion | null>,
): Promise<RecentFile[]> {
  // A workspace that is gone restores no files; the summary stands without them.
  const workspace = await openWorkspace(workspaceDir).catch(() => null);
  if (!workspace) return [];
  const result: RecentFile[] = [];
  for (const file of [...files].sort((a, b) => b.readAt - a.readAt).slice(0, limit)) {
    const current = await readCurrent(workspace, file.path);
    const snapshot = lastWrite ? await lastWrite(file.path) : null;
    const same = current?.whole === true && snapshot !== null && contentHash(current.bytes) === snapshot.hash;
    if (snapshot?.bytes && !same && (current === null || current.whole)) {
      result.push({
        path: file.path,
        content: snapshot.bytes.subarray(0, MAX_BYTES),
        readAt: file.readAt,
        version:
          current === null
            ? `as of message #${snapshot.seq}, the agent's last write; deleted since`
            : `as of message #${snapshot.seq}, the agent's last write; changed since`,
      });
      continue;
    }
    if (current)
      result.push({ path: file.path, content: current.bytes, readAt: file.readAt, version: "current" });
  }
  return result;
}
