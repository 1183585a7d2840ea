import type { CompactionNotice, ThreadState, ToolActivity, TranscriptMessage } from "./thread-state.ts";

export type TranscriptEntry =
  | {
      kind: "message";
      key: string;
      message: TranscriptMessage;
      /** Tool results of this assistant message's calls, by call id. */
      results: Record<string, TranscriptMessage>;
    }
  | { kind: "compaction"; key: string; notice: CompactionNotice };

/**
 * The transcript of one agent: its messages in seq order (each id once, however often it was
 * delivered), tool results folded into the call that produced them, and one notice per compaction
 * placed where it happened in time.
 */
export function buildTranscript(
  state: Pick<ThreadState, "messages" | "compactions">,
  agentId: string,
): TranscriptEntry[] {
  const messages = Object.values(state.messages[agentId] ?? {}).sort((left, right) => left.seq - right.seq);
  const callIds = new Set<string>();
  for (const message of messages) for (const call of message.toolCalls ?? []) callIds.add(call.id);
  const resultsByCall: Record<string, TranscriptMessage> = {};
  for (const message of messages) {
    if (message.role === "tool" && message.toolCallId && callIds.has(message.toolCallId)) {
      resultsByCall[message.toolCallId] = message;
    }
  }
  const notices = compactionNotices(state, agentId);
  const entries: TranscriptEntry[] = [];
  let noticeIndex = 0;
  for (const message of messages) {
    while (noticeIndex < notices.length && notices[noticeIndex]!.at < message.at) {
      const notice = notices[noticeIndex++]!;
      entries.push({ kind: "compaction", key: `compaction:${notice.key}`, notice });
    }
    if (message.role === "tool" && message.toolCallId && callIds.has(message.toolCallId)) continue;
    const results: Record<string, TranscriptMessage> = {};
    for (const call of message.toolCalls ?? []) {
      const result = resultsByCall[call.id];
      if (result) results[call.id] = result;
    }
    entries.push({ kind: "message", key: `message:${message.id}`, message, results });
  }
  for (const notice of notices.slice(noticeIndex)) {
    entries.push({ kind: "compaction", key: `compaction:${notice.key}`, notice });
  }
  return entries;
}

/** One notice per compaction of the agent, oldest first; a compaction id reported twice shows once. */
export function compactionNotices(
  state: Pick<ThreadState, "compactions">,
  agentId: string,
): CompactionNotice[] {
  const byIdentity = new Map<string, CompactionNotice>();
  for (const notice of Object.values(state.compactions)) {
    if (notice.agentId !== agentId) continue;
    const identity = notice.compactionId ?? `key:${notice.key}`;
    const known = byIdentity.get(identity);
    if (!known || known.eventSeq < notice.eventSeq) byIdentity.set(identity, notice);
  }
  return [...byIdentity.values()].sort((left, right) => left.at - right.at || left.eventSeq - right.eventSeq);
}

/** Tool calls of the agent that have started but have no recorded result message yet. */
export function runningTools(state: ThreadState, agentId: string): ToolActivity[] {
  return Object.values(state.tools).filter((tool) => tool.agentId === agentId && tool.status === "running");
}
