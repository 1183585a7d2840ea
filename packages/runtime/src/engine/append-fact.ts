import type { NewMessage, StoredMessage } from "@longrun/protocol";
import type { RuntimeDeps } from "./runtime-deps.ts";

/** Appends one fact under the caller's fence and announces it. */
export async function appendFact(
  deps: RuntimeDeps,
  where: { threadId: string; agentId: string; runId?: string; fence?: number },
  message: NewMessage,
): Promise<StoredMessage> {
  const stored = await deps.store.messages.append(where.agentId, message, { fence: where.fence });
  await deps.events.emit({
    threadId: where.threadId,
    agentId: where.agentId,
    runId: where.runId,
    type: "message.completed",
    data: {
      messageId: stored.id,
      seq: stored.seq,
      role: stored.role,
      content: stored.content,
      toolCalls: stored.toolCalls,
      toolCallId: stored.toolCallId,
      toolStatus: stored.toolStatus,
      usage: stored.usage,
    },
  });
  return stored;
}
