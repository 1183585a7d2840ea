import type {
  CompactionNotice,
  RunView,
  ThreadState,
  ToolActivity,
  TranscriptMessage,
} from "./thread-state.ts";

/** The part of the log a compaction took out of the model's context. */
export interface RemovedRange {
  fromSeq: number;
  toSeq: number;
  /** Messages of the range in the transcript. */
  count: number;
  /** Every message of the range has been read (a long log is read from its end). */
  complete: boolean;
}

export type TranscriptEntry =
  | {
      kind: "message";
      key: string;
      message: TranscriptMessage;
      /** Tool results of this assistant message's calls, by call id. */
      results: Record<string, TranscriptMessage>;
      /** No longer in the model's context: a compaction summarized it. */
      compacted: boolean;
    }
  | { kind: "compaction"; key: string; notice: CompactionNotice; removed: RemovedRange | null }
  | { kind: "run"; key: string; run: RunView };

const RUN_ENDS = new Set(["completed", "failed", "cancelled"]);

/**
 * The transcript of one agent: its messages in seq order (each id once, however often it was
 * delivered), tool results folded into the call that produced them, one notice per compaction placed
 * where it happened in time (with the range it removed), and a marker where each run ended. Messages
 * before the cutoff of the compaction in force are marked as out of the model's context.
 */
export function buildTranscript(
  state: Pick<ThreadState, "messages" | "compactions"> &
    Partial<Pick<ThreadState, "runs" | "messagesReadFrom">>,
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
  const ranges = removedRanges(notices, messages, state.messagesReadFrom?.[agentId] ?? -1);
  const inForce = ranges.boundary;
  const markers: TranscriptEntry[] = [
    ...notices.map(
      (notice): TranscriptEntry => ({
        kind: "compaction",
        key: `compaction:${notice.key}`,
        notice,
        removed: ranges.byKey.get(notice.key) ?? null,
      }),
    ),
    ...Object.values(state.runs ?? {})
      .filter((run) => run.agentId === agentId && RUN_ENDS.has(run.status))
      .map((run): TranscriptEntry => ({ kind: "run", key: `run:${run.id}`, run })),
  ].sort((left, right) => markerAt(left) - markerAt(right));
  const entries: TranscriptEntry[] = [];
  let markerIndex = 0;
  for (const message of messages) {
    while (markerIndex < markers.length && markerAt(markers[markerIndex]!) < message.at) {
      entries.push(markers[markerIndex++]!);
    }
    if (message.role === "tool" && message.toolCallId && callIds.has(message.toolCallId)) continue;
    const results: Record<string, TranscriptMessage> = {};
    for (const call of message.toolCalls ?? []) {
      const result = resultsByCall[call.id];
      if (result) results[call.id] = result;
    }
    entries.push({
      kind: "message",
      key: `message:${message.id}`,
      message,
      results,
      compacted: message.seq < inForce,
    });
  }
  for (const marker of markers.slice(markerIndex)) entries.push(marker);
  return entries;
}

function markerAt(entry: TranscriptEntry): number {
  if (entry.kind === "compaction") return entry.notice.at;
  if (entry.kind === "run") return entry.run.finishedAt ?? entry.run.at;
  return entry.message.at;
}

/**
 * For each completed compaction, the seq range it moved out of the context (from the previous cutoff up
 * to its own), and the boundary in force now: messages below it are no longer sent to the model.
 */
export function removedRanges(
  notices: readonly CompactionNotice[],
  messages: readonly TranscriptMessage[],
  readFrom = -1,
): { byKey: Map<string, RemovedRange>; boundary: number } {
  const seqOfId = new Map(messages.map((message) => [message.id, message.seq]));
  const byKey = new Map<string, RemovedRange>();
  let boundary = 0;
  for (const notice of notices) {
    if (notice.phase !== "completed") continue;
    const cutoff = cutoffOf(notice, seqOfId, messages);
    if (cutoff === undefined || cutoff <= boundary) continue;
    // Messages are in seq order: count by two binary searches, not a pass per compaction.
    const count = lowerBound(messages, cutoff) - lowerBound(messages, boundary);
    byKey.set(notice.key, { fromSeq: boundary, toSeq: cutoff - 1, count, complete: boundary > readFrom });
    boundary = cutoff;
  }
  return { byKey, boundary };
}

/** The first seq a completed compaction kept in the context; undefined when it cannot be told yet. */
function cutoffOf(
  notice: CompactionNotice,
  seqOfId: ReadonlyMap<string, number>,
  messages: readonly TranscriptMessage[],
): number | undefined {
  // The event names the seq; older servers name only the message, which may not have been read yet.
  if (notice.cutoffSeq !== undefined) return notice.cutoffSeq;
  if (notice.cutoffMessageId) return seqOfId.get(notice.cutoffMessageId);
  if (notice.strategy !== "full") return undefined;
  // A full summary keeps nothing verbatim: everything written before it is out.
  let last = -1;
  for (const message of messages) if (message.at <= notice.at) last = message.seq;
  return last + 1;
}

/** Index of the first message with seq >= `seq` in a seq-ordered list. */
function lowerBound(messages: readonly TranscriptMessage[], seq: number): number {
  let low = 0;
  let high = messages.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((messages[middle]?.seq ?? 0) < seq) low = middle + 1;
    else high = middle;
  }
  return low;
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

/**
 * Tool calls of the agent that have started and have no result yet, and that no transcript message
 * shows: a call inside its assistant message is drawn there, never a second time as a loose block.
 */
export function runningTools(state: ThreadState, agentId: string): ToolActivity[] {
  const shown = new Set<string>();
  for (const message of Object.values(state.messages[agentId] ?? {})) {
    for (const call of message.toolCalls ?? []) shown.add(call.id);
  }
  return Object.values(state.tools).filter(
    (tool) => tool.agentId === agentId && tool.status === "running" && !shown.has(tool.callId),
  );
}

/** The searchable text of an entry (message text, tool names, arguments and results). */
export function entryText(entry: TranscriptEntry, textOf: (message: TranscriptMessage) => string): string {
  if (entry.kind === "compaction") return `compaction ${entry.notice.trigger} ${entry.notice.reason ?? ""}`;
  if (entry.kind === "run")
    return `run ${entry.run.kind ?? ""} ${entry.run.status} ${entry.run.error?.message ?? ""}`;
  const parts = [textOf(entry.message)];
  for (const call of entry.message.toolCalls ?? []) {
    parts.push(call.function.name, call.function.arguments);
    const result = entry.results[call.id];
    if (result) parts.push(textOf(result));
  }
  return parts.join("\n");
}

export type TranscriptFilter = "all" | "tools" | "errors" | "compactions" | "runs";

/** Whether an entry passes a filter: tool calls, failures, compaction notices, run boundaries. */
export function passesFilter(entry: TranscriptEntry, filter: TranscriptFilter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "tools":
      return entry.kind === "message" && (entry.message.toolCalls?.length ?? 0) > 0;
    case "errors":
      if (entry.kind === "run") return entry.run.status === "failed" || entry.run.status === "cancelled";
      if (entry.kind === "compaction") return entry.notice.phase === "failed";
      return (
        (entry.message.toolStatus !== undefined && entry.message.toolStatus !== "ok") ||
        Object.values(entry.results).some((result) => result.toolStatus && result.toolStatus !== "ok")
      );
    case "compactions":
      return entry.kind === "compaction";
    case "runs":
      return entry.kind === "run";
  }
}
