import type { EventData, EventType, LongrunEvent } from "@longrun/protocol";

/** Builds a typed event for tests: thread "t1", agent "a-root" unless given. */
export function makeEvent<Type extends EventType>(
  type: Type,
  seq: number,
  data: EventData<Type>,
  extra: { agentId?: string; runId?: string; at?: number; threadId?: string } = {},
): LongrunEvent {
  return {
    threadId: extra.threadId ?? "t1",
    seq,
    agentId: extra.agentId ?? "a-root",
    ...(extra.runId ? { runId: extra.runId } : {}),
    type,
    data,
    at: extra.at ?? 1000 + seq,
  } as LongrunEvent;
}

/** message.completed for a plain text message. */
export function textMessage(
  seq: number,
  messageId: string,
  messageSeq: number,
  role: "user" | "assistant",
  content: string,
  agentId = "a-root",
): LongrunEvent {
  return makeEvent("message.completed", seq, { messageId, seq: messageSeq, role, content }, { agentId });
}
