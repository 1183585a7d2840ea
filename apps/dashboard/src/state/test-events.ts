import { type EventData, type EventType, type LongrunEvent, ModelProfile } from "@longrun/protocol";

/** A sim profile as the server stores it: the schema fills every default, so new fields never break fixtures. */
export function testProfile(): ModelProfile {
  return ModelProfile.parse({ model: "sim", idleGapMs: 1 });
}

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

/** context.measured data at a step (100 tokens of an 8k window). */
export function measuredData(step: number): EventData<"context.measured"> {
  return {
    step,
    rawTokens: 100,
    projectedTokens: 100,
    maxInputTokens: 8000,
    triggerTokens: 6000,
    saved: { collapse: 0, truncate: 0, microcompact: 0 },
    needsCompaction: false,
  };
}
