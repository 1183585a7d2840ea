import type { CompactionCoverage } from "@longrun/protocol";
import type {
  CompactionNotice,
  RunView,
  ThreadState,
  ToolActivity,
  TranscriptMessage,
} from "./thread-state.ts";

/** The part of the log a compaction took out of the model's context. */
export interface RemovedRange {
  /** First and last seq the compaction took out (messages it kept verbatim at the edges left out). */
  fromSeq: number;
  toSeq: number;
  /** Messages at or before the range its projection still sends verbatim: system prompt, pinned task. */
  kept: CompactionCoverage["kept"];
  /** Messages of the range in the transcript that were taken out. */
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

type MessageEntry = Extract<TranscriptEntry, { kind: "message" }>;

/**
 * A built transcript with what it was built from, so the next build (one more batch of streamed events)
 * reuses what did not change: the seq-ordered messages are extended instead of sorted again when only
 * newer messages arrived, and every entry whose message, results, greying, notice or run is the same is
 * the previous entry object itself (memoized rows and derived views see no change).
 */
export interface TranscriptBuild {
  readonly entries: TranscriptEntry[];
  /** The agent's message record it was built from, and those messages in seq order. */
  readonly source: Readonly<Record<string, TranscriptMessage>>;
  readonly sorted: readonly TranscriptMessage[];
  /** Ids of every tool call of its messages: a call among them is drawn inside its message. */
  readonly callIds: ReadonlySet<string>;
  /** Its compaction notices and run ends, by key. */
  readonly markers: ReadonlyMap<string, TranscriptEntry>;
}

/**
 * The transcript of one agent: its messages in seq order (each id once, however often it was
 * delivered), tool results folded into the call that produced them, one notice per compaction placed
 * where it happened in time (with the range it removed), and a marker where each run ended. Messages
 * before the cutoff of the compaction in force are marked as out of the model's context.
 */
export function buildTranscript(
  state: TranscriptSource,
  agentId: string,
  coverage: Readonly<Record<string, CompactionCoverage>> = {},
): TranscriptEntry[] {
  return updateTranscript(null, state, agentId, coverage).entries;
}

type TranscriptSource = Pick<ThreadState, "messages" | "compactions"> &
  Partial<Pick<ThreadState, "runs" | "messagesReadFrom">>;

/**
 * The same transcript as buildTranscript, built on a previous build of the same agent: equal to a full
 * rebuild whatever the previous build was (a stale one only saves less), and while a run streams its
 * cost is a pass over the messages without sorting or new objects for the entries that did not change.
 */
export function updateTranscript(
  previous: TranscriptBuild | null,
  state: TranscriptSource,
  agentId: string,
  coverage: Readonly<Record<string, CompactionCoverage>> = {},
): TranscriptBuild {
  const source = state.messages[agentId] ?? {};
  const sorted = sortedMessages(previous, source);
  const callIds = new Set<string>();
  for (const message of sorted) for (const call of message.toolCalls ?? []) callIds.add(call.id);
  const resultsByCall = new Map<string, TranscriptMessage>();
  for (const message of sorted) {
    if (message.role === "tool" && message.toolCallId && callIds.has(message.toolCallId)) {
      resultsByCall.set(message.toolCallId, message);
    }
  }
  const notices = compactionNotices(state, agentId);
  const ranges = removedRanges(notices, sorted, coverage, state.messagesReadFrom?.[agentId] ?? -1);
  const inForce = ranges.boundary;
  const keptInForce = new Set(ranges.keptInForce.map((kept) => kept.seq));
  const markers = new Map<string, TranscriptEntry>();
  const reuse = (entry: TranscriptEntry) => {
    const known = previous?.markers.get(entry.key);
    const same =
      known !== undefined &&
      ((known.kind === "run" && entry.kind === "run" && known.run === entry.run) ||
        (known.kind === "compaction" &&
          entry.kind === "compaction" &&
          known.notice === entry.notice &&
          sameRange(known.removed, entry.removed)));
    markers.set(entry.key, same ? known : entry);
  };
  for (const notice of notices) {
    reuse({
      kind: "compaction",
      key: `compaction:${notice.key}`,
      notice,
      removed: ranges.byKey.get(notice.key) ?? null,
    });
  }
  for (const run of Object.values(state.runs ?? {})) {
    if (run.agentId === agentId && RUN_ENDS.has(run.status))
      reuse({ kind: "run", key: `run:${run.id}`, run });
  }
  const ordered = [...markers.values()].sort((left, right) => markerAt(left) - markerAt(right));
  // The previous message entries, walked beside the new ones (both in seq order).
  const before = previous?.entries ?? [];
  let cursor = 0;
  const entries: TranscriptEntry[] = [];
  let markerIndex = 0;
  for (const message of sorted) {
    while (markerIndex < ordered.length && markerAt(ordered[markerIndex]!) < message.at) {
      entries.push(ordered[markerIndex++]!);
    }
    if (message.role === "tool" && message.toolCallId && callIds.has(message.toolCallId)) continue;
    const compacted = message.seq < inForce && !keptInForce.has(message.seq);
    let known: MessageEntry | undefined;
    while (cursor < before.length) {
      const candidate = before[cursor]!;
      if (candidate.kind !== "message" || candidate.message.seq < message.seq) cursor++;
      else {
        if (candidate.message.id === message.id) known = candidate;
        break;
      }
    }
    if (
      known &&
      known.message === message &&
      known.compacted === compacted &&
      (message.toolCalls ?? []).every((call) => known.results[call.id] === resultsByCall.get(call.id))
    ) {
      entries.push(known);
      cursor++;
      continue;
    }
    const results: Record<string, TranscriptMessage> = {};
    for (const call of message.toolCalls ?? []) {
      const result = resultsByCall.get(call.id);
      if (result) results[call.id] = result;
    }
    entries.push({ kind: "message", key: `message:${message.id}`, message, results, compacted });
  }
  for (const marker of ordered.slice(markerIndex)) entries.push(marker);
  return { entries, source, sorted, callIds, markers };
}

/**
 * The agent's messages in seq order. When the record only gained messages newer than all it had (a run
 * streaming), the previous order is extended; anything else (a replaced, removed or older message, an
 * earlier part of the log read) sorts again. Ties keep the record's order, as a stable sort does.
 */
function sortedMessages(
  previous: TranscriptBuild | null,
  source: Readonly<Record<string, TranscriptMessage>>,
): readonly TranscriptMessage[] {
  if (previous?.source === source) return previous.sorted;
  const all = Object.values(source);
  if (previous) {
    const last = previous.sorted.at(-1)?.seq ?? Number.NEGATIVE_INFINITY;
    let kept = 0;
    const added: TranscriptMessage[] = [];
    let appends = true;
    for (const message of all) {
      const known = previous.source[message.id];
      if (known === message) kept++;
      else if (known === undefined && message.seq > last) added.push(message);
      else {
        appends = false;
        break;
      }
    }
    // Every earlier message still there, each new one after them all: extend the order.
    if (appends && kept === previous.sorted.length)
      return added.length === 0 ? previous.sorted : previous.sorted.concat(added.sort(bySeq));
  }
  return all.sort(bySeq);
}

/** Seq order; two messages at one seq (never in a real log) by id, so the order never depends on arrival. */
function bySeq(left: TranscriptMessage, right: TranscriptMessage): number {
  return left.seq - right.seq || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}

/** Whether two removed ranges say the same. */
export function sameRange(before: RemovedRange | null, after: RemovedRange | null): boolean {
  if (before === null || after === null) return before === after;
  return (
    before.fromSeq === after.fromSeq &&
    before.toSeq === after.toSeq &&
    before.kept === after.kept &&
    before.count === after.count &&
    before.complete === after.complete
  );
}

function markerAt(entry: TranscriptEntry): number {
  if (entry.kind === "compaction") return entry.notice.at;
  if (entry.kind === "run") return entry.run.finishedAt ?? entry.run.at;
  return entry.message.at;
}

/**
 * For each completed compaction, what the server's projection says it took out of the context (from the
 * previous cutoff up to its own, less the system prompt and pinned task it still sends), and the boundary
 * in force now with the messages below it still sent. Nothing is greyed on a guess: a compaction whose
 * coverage the server has not given yet (GET /v1/agents/:id/compactions) leaves the boundary where it was.
 */
export function removedRanges(
  notices: readonly CompactionNotice[],
  messages: readonly TranscriptMessage[],
  coverage: Readonly<Record<string, CompactionCoverage>>,
  readFrom = -1,
): { byKey: Map<string, RemovedRange>; boundary: number; keptInForce: CompactionCoverage["kept"] } {
  const byKey = new Map<string, RemovedRange>();
  let boundary = 0;
  let keptInForce: CompactionCoverage["kept"] = [];
  for (const notice of notices) {
    if (notice.phase !== "completed" || !notice.compactionId) continue;
    const covered = coverage[notice.compactionId];
    if (!covered || covered.toSeq < covered.fromSeq) continue;
    const kept = new Set(covered.kept.map((item) => item.seq));
    let fromSeq = covered.fromSeq;
    let toSeq = covered.toSeq;
    while (fromSeq <= toSeq && kept.has(fromSeq)) fromSeq++;
    while (toSeq >= fromSeq && kept.has(toSeq)) toSeq--;
    // Messages are in seq order: count by two binary searches, not a pass per compaction.
    let count = lowerBound(messages, covered.toSeq + 1) - lowerBound(messages, covered.fromSeq);
    for (const seq of kept)
      if (seq >= covered.fromSeq && seq <= covered.toSeq && hasSeq(messages, seq)) count--;
    byKey.set(notice.key, {
      fromSeq,
      toSeq,
      kept: covered.kept,
      count,
      complete: covered.fromSeq > readFrom,
    });
    boundary = Math.max(boundary, covered.toSeq + 1);
    keptInForce = covered.kept;
  }
  return { byKey, boundary, keptInForce };
}

function hasSeq(messages: readonly TranscriptMessage[], seq: number): boolean {
  return messages[lowerBound(messages, seq)]?.seq === seq;
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
export function runningTools(
  state: Pick<ThreadState, "messages" | "tools">,
  agentId: string,
): ToolActivity[] {
  const shown = new Set<string>();
  for (const message of Object.values(state.messages[agentId] ?? {})) {
    for (const call of message.toolCalls ?? []) shown.add(call.id);
  }
  return runningCalls(state.tools, agentId, shown);
}

/** runningTools, given the call ids the transcript shows (TranscriptBuild.callIds): no pass over the log. */
export function runningCalls(
  tools: ThreadState["tools"],
  agentId: string,
  shown: ReadonlySet<string>,
): ToolActivity[] {
  return Object.values(tools).filter(
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

type CompactionEntry = Extract<TranscriptEntry, { kind: "compaction" }>;

/** What the transcript draws: its entries, with consecutive compaction notices folded into one row. */
export type ShownEntry = TranscriptEntry | { kind: "compactions"; key: string; entries: CompactionEntry[] };

/** Part of a row of compactions: a notice, or the end of the /compact run that made one. */
function inCompactionRun(entry: TranscriptEntry | undefined): boolean {
  return entry?.kind === "compaction" || (entry?.kind === "run" && entry.run.kind === "compact");
}

/**
 * Folds every run of two or more consecutive compaction notices (with the ends of the /compact runs
 * between them) into one row — a long log read from its end starts with hundreds of them in a row —
 * except the runs whose row key is in `expanded`.
 */
export function foldCompactions(
  entries: readonly TranscriptEntry[],
  expanded: ReadonlySet<string>,
): ShownEntry[] {
  const shown: ShownEntry[] = [];
  let index = 0;
  while (index < entries.length) {
    const entry = entries[index] as TranscriptEntry;
    let end = index;
    while (entry.kind === "compaction" && inCompactionRun(entries[end])) end++;
    const key = `compactions:${entry.key}`;
    const notices = entries
      .slice(index, end)
      .filter((inner): inner is CompactionEntry => inner.kind === "compaction");
    if (notices.length >= 2 && !expanded.has(key)) {
      shown.push({ kind: "compactions", key, entries: notices });
      index = end;
    } else if (notices.length >= 2) {
      // Unfolded: its later notices must not start a row of their own.
      for (const inner of entries.slice(index, end)) shown.push(inner);
      index = end;
    } else {
      shown.push(entry);
      index++;
    }
  }
  return shown;
}

/** Where an entry is drawn: its own row, or the folded row that holds it (`folded`: that row's key). */
export function locateEntry(
  shown: readonly ShownEntry[],
  key: string,
): { index: number; folded: string | null } | null {
  for (let index = 0; index < shown.length; index++) {
    const entry = shown[index] as ShownEntry;
    if (entry.key === key) return { index, folded: null };
    if (entry.kind === "compactions" && entry.entries.some((inner) => inner.key === key))
      return { index, folded: entry.key };
  }
  return null;
}
