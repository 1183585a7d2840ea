import { lstat } from "node:fs/promises";
import type { ToolContext } from "../tools/types.ts";
import { walkFiles } from "../tools/walk-files.ts";
import type { Workspace } from "../tools/workspace.ts";
import { snapshotBytes } from "./snapshot-bytes.ts";

/** Entries a command's before/after walk reads at most; a bigger tree is not watched. */
export const MANIFEST_MAX_ENTRIES = 20_000;
/** Paths one command's snapshot records at most (a `git checkout` of a whole tree is cut here). */
export const COMMAND_CHANGES_MAX = 200;

/** A file's size and times: what tells that a command changed it. */
interface FileStamp {
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

/** The workspace's regular files by relative path (`.git`, `node_modules`, `.longrun` skipped). */
export interface WorkspaceManifest {
  files: Map<string, FileStamp>;
  /** False when the walk stopped at MANIFEST_MAX_ENTRIES: the tree is too big to watch. */
  complete: boolean;
}

/** Stamps every regular file of the workspace (bounded): the state a command's changes are told from. */
export async function workspaceManifest(workspace: Workspace): Promise<WorkspaceManifest> {
  const files = new Map<string, FileStamp>();
  let complete = true;
  const walk = walkFiles(workspace, workspace.root, {
    maxEntries: MANIFEST_MAX_ENTRIES,
    onLimit: () => {
      complete = false;
    },
  });
  for await (const file of walk) {
    try {
      const info = await lstat(file.absolute, { bigint: true });
      files.set(file.relative, { size: info.size, mtimeNs: info.mtimeNs, ctimeNs: info.ctimeNs });
    } catch {
      // Gone between the folder read and the stat: absent, as the next walk will say too.
    }
  }
  return { files, complete };
}

const sameStamp = (a: FileStamp, b: FileStamp) =>
  a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

/** Paths created or changed, and deleted, between two manifests, in path order. */
export function manifestChanges(
  before: WorkspaceManifest,
  after: WorkspaceManifest,
): { created: string[]; modified: string[]; deleted: string[] } {
  const created: string[] = [];
  const modified: string[] = [];
  for (const [file, stamp] of after.files) {
    const earlier = before.files.get(file);
    if (!earlier) created.push(file);
    else if (!sameStamp(earlier, stamp)) modified.push(file);
  }
  const deleted = [...before.files.keys()].filter((file) => !after.files.has(file));
  const sorted = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { created: sorted(created), modified: sorted(modified), deleted: sorted(deleted) };
}

/**
 * Records what a shell command did to the workspace, as the file tools record their changes: each
 * created, changed or deleted file with its content after the command (a created file did not exist
 * before; a changed or deleted one's earlier content is not known — the command overwrote it before
 * anyone could read it). Nothing is recorded when either walk was cut short; at most
 * COMMAND_CHANGES_MAX paths. Returns how many were recorded.
 */
export async function recordCommandChanges(
  workspace: Workspace,
  context: Pick<ToolContext, "recordChange">,
  before: WorkspaceManifest,
  after: WorkspaceManifest,
): Promise<number> {
  if (!before.complete || !after.complete) return 0;
  const { created, modified, deleted } = manifestChanges(before, after);
  const changes = [
    ...created.map((file) => ({ file, existed: false })),
    ...modified.map((file) => ({ file, existed: true })),
  ];
  let recorded = 0;
  for (const { file, existed } of changes) {
    if (recorded >= COMMAND_CHANGES_MAX) return recorded;
    // Vanished (null), replaced by something not a readable file, or too big since the walk: not known.
    const bytes = await workspace
      .resolve(file)
      .then((target) => snapshotBytes(workspace, target))
      .catch(() => undefined);
    if (!bytes) continue;
    context.recordChange(file, existed ? undefined : null, bytes);
    recorded++;
  }
  for (const file of deleted) {
    if (recorded >= COMMAND_CHANGES_MAX) return recorded;
    context.recordChange(file, undefined, null);
    recorded++;
  }
  return recorded;
}
