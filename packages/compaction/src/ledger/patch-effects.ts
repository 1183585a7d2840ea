import type { FileChange } from "./shell-effects.ts";

const APPLY_PATCH = /^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/;
const UNIFIED_NEW = /^\+\+\+ (?:b\/)?([^\t\n]+)/;
const UNIFIED_OLD = /^--- (?:a\/)?([^\t\n]+)/;

/**
 * Files a patch changes: the `apply_patch` envelope (`*** Update File: p`, `*** Add File:`,
 * `*** Delete File:`, `*** Move to:`) or a unified diff (`--- a/p` / `+++ b/p`).
 */
export function patchEffects(text: string): FileChange[] {
  const changes: FileChange[] = [];
  let oldPath: string | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const envelope = line.match(APPLY_PATCH);
    if (envelope) {
      const [, verb, path, moved] = envelope;
      if (moved) changes.push({ path: moved.trim(), action: "written" });
      else if (path) {
        const action = verb === "Add" ? "created" : verb === "Delete" ? "deleted" : "edited";
        changes.push({ path: path.trim(), action });
      }
      continue;
    }
    const old = line.match(UNIFIED_OLD);
    if (old && !line.startsWith("----")) {
      oldPath = old[1]?.trim() ?? null;
      continue;
    }
    const added = line.match(UNIFIED_NEW);
    if (!added) continue;
    const path = added[1]?.trim();
    if (path === "/dev/null" && oldPath && oldPath !== "/dev/null")
      changes.push({ path: oldPath, action: "deleted" });
    else if (path && path !== "/dev/null")
      changes.push({ path, action: oldPath === "/dev/null" ? "created" : "edited" });
    oldPath = null;
  }
  return changes;
}
