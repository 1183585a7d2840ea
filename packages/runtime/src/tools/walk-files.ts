import type { Dirent } from "node:fs";
import path from "node:path";
import type { Workspace } from "./workspace.ts";

/** Folders never walked into by glob and grep. */
// `.longrun` holds the agent's own compacted history: searching it would feed old context back in.
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(["node_modules", ".git", ".longrun"]);

/** A regular file found by `walkFiles`. */
export interface WalkedFile {
  absolute: string;
  relative: string;
}

/**
 * Yield the regular files under `start` (depth-first, sorted by name). Symlinks are not followed and
 * each folder is read from a verified descriptor, so a walk never leaves the workspace; open the
 * files it yields with `workspace.openFile`. `maxEntries` bounds the work on huge trees (`onLimit` says
 * the walk stopped there).
 */
export async function* walkFiles(
  workspace: Workspace,
  start: string,
  options: { maxEntries?: number; signal?: AbortSignal | undefined; onLimit?: () => void } = {},
): AsyncGenerator<WalkedFile> {
  const maxEntries = options.maxEntries ?? 100_000;
  let seen = 0;
  const stack = [start];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    if (options.signal?.aborted) return;
    let entries: Dirent[];
    try {
      // Read from a descriptor checked to be inside: a folder swapped for a symlink is skipped.
      entries = await workspace.readDir({ absolute: dir, relative: workspace.relative(dir) });
    } catch {
      continue; // unreadable, swapped or vanished folders are skipped, not fatal
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      if (++seen > maxEntries) {
        options.onLimit?.();
        return;
      }
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) subdirs.push(absolute);
      } else if (entry.isFile()) {
        yield { absolute, relative: workspace.relative(absolute) };
      }
    }
    // Pushed in reverse so the stack pops them in name order.
    for (const subdir of subdirs.reverse()) stack.push(subdir);
  }
}
