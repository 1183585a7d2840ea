import type { StoredMessage, Thread } from "@longrun/protocol";
import type { FileChange, UnitOfWork } from "@longrun/store";
import { DEFAULT_SNAPSHOT_MAX_BYTES, fileContent } from "./file-content.ts";

/** One path's change as a snapshot records it: hashed, and kept whole up to the size cap. */
export function fileChange(
  path: string,
  before: Uint8Array | null | undefined,
  after: Uint8Array | null,
  maxBytes = DEFAULT_SNAPSHOT_MAX_BYTES,
): FileChange {
  return {
    path,
    ...(before === undefined ? {} : { before: fileContent(before, maxBytes) }),
    after: fileContent(after, maxBytes),
  };
}

/** Records a call's file changes in the transaction of its result fact, linked to that fact. */
export async function recordChangesIn(
  unit: UnitOfWork,
  thread: Pick<Thread, "id" | "tenantId">,
  agentId: string,
  result: StoredMessage,
  changes: readonly FileChange[],
): Promise<void> {
  await unit.recordFileChanges({
    tenantId: thread.tenantId,
    threadId: thread.id,
    agentId,
    messageId: result.id,
    seq: result.seq,
    callId: result.toolCallId ?? "",
    changes,
  });
}
