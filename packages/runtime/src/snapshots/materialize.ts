import { constants } from "node:fs";
import { cp, readFile, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { StoredMessage } from "@longrun/protocol";
import type { FileSnapshot, Store } from "@longrun/store";
import { rewrite } from "../tools/text-file.ts";
import { openWorkspace, type Workspace } from "../tools/workspace.ts";
import { contentHash } from "./file-content.ts";

/** What a fork's workspace holds beside the copy of the source's current files. */
export interface MaterializedWorkspace {
  /** Paths written back to their content as of the point. */
  restored: number;
  /** Paths removed: they did not exist at the point. */
  removed: number;
  /**
   * Paths the copy could not put back as of the point (left as they are now): contents over the
   * snapshot size cap, or whose state before the thread's first change is unknown.
   */
  unrestorable: string[];
}

/** longrun's own files in a workspace (history offload): never copied into a fork. */
const OWN_FOLDER = ".longrun";

/**
 * Which snapshot rows are in force at the fork point: the root agent's own changes whose call result
 * is at or before the point (a call answered `cancelled` in the fork is after it), and other agents'
 * (sub-agents sharing the workspace) recorded no later than the point's message.
 */
function inForce(row: FileSnapshot, rootAgentId: string, point: StoredMessage): boolean {
  if (row.phase !== "after") return false;
  if (row.agentId === rootAgentId) return row.seq <= point.seq;
  return row.createdAt < point.createdAt || (row.createdAt === point.createdAt && row.id <= point.id);
}

/**
 * Fills `targetDir` (a new, empty folder) with the source thread's workspace as it was at `point`, a
 * message of the source's root agent: the source folder's current files are copied (copy-on-write
 * clones where the filesystem has them), then every path the source's agents changed is put back to its
 * content as of the point — the newest snapshot in force, or the content before the thread first
 * changed it — and removed when it did not exist then. Files the agents never changed through the file
 * tools (shell commands included) come as they are now.
 */
export async function materializeWorkspace(
  store: Store,
  input: {
    sourceThreadId: string;
    tenantId: string;
    sourceDir: string;
    rootAgentId: string;
    point: StoredMessage;
    targetDir: string;
  },
): Promise<MaterializedWorkspace> {
  const result: MaterializedWorkspace = { restored: 0, removed: 0, unrestorable: [] };
  const sourceExists = await stat(input.sourceDir).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (sourceExists) {
    const ownFolder = path.join(path.resolve(input.sourceDir), OWN_FOLDER);
    await cp(input.sourceDir, input.targetDir, {
      recursive: true,
      force: true,
      verbatimSymlinks: true,
      mode: constants.COPYFILE_FICLONE,
      filter: (source) => path.resolve(source) !== ownFolder,
    });
  }
  const rows = await store.fileSnapshots.list(input.sourceThreadId);
  const byPath = new Map<string, FileSnapshot[]>();
  for (const row of rows) byPath.set(row.path, [...(byPath.get(row.path) ?? []), row]);
  const workspace = await openWorkspace(input.targetDir);
  for (const [file, history] of byPath) {
    const state =
      history.filter((row) => inForce(row, input.rootAgentId, input.point)).at(-1) ??
      history.find((row) => row.phase === "before");
    try {
      const outcome = state ? await putBack(store, workspace, input.tenantId, file, state) : "unrestorable";
      if (outcome === "unrestorable") result.unrestorable.push(file);
      else result[outcome]++;
    } catch {
      // A path that cannot be written as it was (a folder there now, a refused symlink on the way)
      // stays as copied; the caller reports every such path.
      result.unrestorable.push(file);
    }
  }
  return result;
}

/** sha256 of a file of the new folder as copied; null when there is none. */
async function currentHash(file: string): Promise<string | null> {
  try {
    return contentHash(await readFile(file));
  } catch {
    // No file (or not a readable one) there: it cannot be the content wanted.
    return null;
  }
}

/** Puts one path back to a snapshot's content (or removes it when the snapshot says "no file"). */
async function putBack(
  store: Store,
  workspace: Workspace,
  tenantId: string,
  file: string,
  state: FileSnapshot,
): Promise<"restored" | "removed" | "unrestorable"> {
  const target = await workspace.resolve(file, { allowMissing: true });
  if (state.hash === null) {
    await unlink(target.absolute).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
    });
    return "removed";
  }
  const bytes = await store.fileSnapshots.blob(tenantId, state.hash);
  // Over the size cap only the hash was kept: fine when the copy already is that content.
  if (!bytes) return (await currentHash(target.absolute)) === state.hash ? "restored" : "unrestorable";
  const { handle } = await workspace.createFile(target);
  try {
    await rewrite(handle, bytes);
  } finally {
    await handle.close();
  }
  return "restored";
}
