import type { ChatMessage, CompactionStrategy } from "@longrun/protocol";

/** Facts about a compaction shown in its summary message header. */
export interface SummaryMeta {
  strategy: CompactionStrategy;
  /** Number of messages the summary replaces. */
  summarizedMessages: number;
  /** Seq range summarized, when known. */
  firstSeq?: number;
  lastSeq?: number;
}

export const SUMMARY_HEADER = "[Context summary — earlier conversation compacted]";

/**
 * The compaction event's summary_message: a user message (strict providers accept a user turn
 * right after the system prompt) that starts with SUMMARY_HEADER.
 */
export function buildSummaryMessage(text: string, meta: SummaryMeta): ChatMessage {
  const range =
    meta.firstSeq !== undefined && meta.lastSeq !== undefined ? `, seq ${meta.firstSeq}–${meta.lastSeq}` : "";
  const ending =
    meta.strategy === "partial"
      ? "[End of summary. The messages after it are the recent conversation, verbatim.]"
      : "[End of summary. Nothing after it was kept verbatim; continue from the next step above.]";
  return {
    role: "user",
    content: `${SUMMARY_HEADER}\n(${meta.strategy} compaction of ${meta.summarizedMessages} messages${range}; the full history is kept outside this context)\n\n${text.trim()}\n\n${ending}`,
  };
}
