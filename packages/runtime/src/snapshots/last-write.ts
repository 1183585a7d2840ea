import type { AgentState, Thread } from "@longrun/protocol";
import type { Store } from "@longrun/store";
import type { SnapshotVersion } from "../compaction/read-recent-files.ts";

/**
 * For restoration: the snapshot of the agent's last write to a path, when that write is the last the
 * agent saw of the file (no read of it recorded after the write); null otherwise or when it never wrote
 * it through the file tools.
 */
export function lastWriteSeen(
  store: Store,
  thread: Pick<Thread, "id" | "tenantId">,
  agentId: string,
  recentFiles: AgentState["recentFiles"],
): (path: string) => Promise<SnapshotVersion | null> {
  return async (path) => {
    const row = await store.fileSnapshots.latest(thread.id, path, { agentId });
    if (!row) return null;
    const read = recentFiles.find((file) => file.path === path);
    // Read again after its write: the agent saw a later version, which no snapshot holds.
    if (read && read.readAt > row.createdAt) return null;
    const bytes = row.hash ? await store.fileSnapshots.blob(thread.tenantId, row.hash) : null;
    return { seq: row.seq, hash: row.hash, bytes };
  };
}
