import { open, realpath } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";

const MAX_BYTES = 256 * 1024;

/** Reads recently accessed workspace files for restoration; files outside the workspace are skipped. */
export async function readRecentFiles(
  workspaceDir: string,
  files: Array<{ path: string; readAt: number }>,
  limit = 8,
): Promise<Array<{ path: string; content: Uint8Array; readAt: number }>> {
  const root = await realpath(workspaceDir).catch(() => workspaceDir);
  const result: Array<{ path: string; content: Uint8Array; readAt: number }> = [];
  for (const file of [...files].sort((a, b) => b.readAt - a.readAt).slice(0, limit)) {
    try {
      const real = await realpath(resolve(root, file.path));
      const inside = relative(root, real);
      if (inside.startsWith("..") || isAbsolute(inside)) continue;
      const handle = await open(real, "r");
      try {
        const buffer = Buffer.alloc(MAX_BYTES);
        const { bytesRead } = await handle.read(buffer, 0, MAX_BYTES, 0);
        result.push({ path: file.path, content: buffer.subarray(0, bytesRead), readAt: file.readAt });
      } finally {
        await handle.close();
      }
    } catch {
      // A file deleted or unreadable since it was read is simply not restored.
    }
  }
  return result;
}
