import { openWorkspace } from "../tools/workspace.ts";

const MAX_BYTES = 256 * 1024;

/**
 * Reads recently accessed workspace files for restoration. Each file is opened through the
 * workspace's verified descriptors, like the tools do: one swapped for a symlink to the outside (or
 * leading there) is skipped, never read into the model's context.
 */
export async function readRecentFiles(
  workspaceDir: string,
  files: Array<{ path: string; readAt: number }>,
  limit = 8,
): Promise<Array<{ path: string; content: Uint8Array; readAt: number }>> {
  // A workspace that is gone restores no files; the summary stands without them.
  const workspace = await openWorkspace(workspaceDir).catch(() => null);
  if (!workspace) return [];
  const result: Array<{ path: string; content: Uint8Array; readAt: number }> = [];
  for (const file of [...files].sort((a, b) => b.readAt - a.readAt).slice(0, limit)) {
    try {
      const handle = await workspace.openFile(await workspace.resolve(file.path));
      try {
        const buffer = Buffer.alloc(MAX_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, MAX_BYTES, 0);
        result.push({ path: file.path, content: buffer.subarray(0, bytesRead), readAt: file.readAt });
      } finally {
        await handle.close();
      }
    } catch {
      // A file deleted, unreadable or refused since it was read is simply not restored.
    }
  }
  return result;
}
