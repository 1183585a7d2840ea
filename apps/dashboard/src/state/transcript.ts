import type { CompactionCoverage } from "@longrun/protocol";
import { bySeq, MessageLog } from "./message-log.ts";
import {
  compactionNotices,
  type RangeState,
  type RemovedRange,
  removedRanges,
  sameRange,
} from "./removed-ranges.ts";
import type {
  CompactionNotice,
  RunView,
  ThreadState,
  ToolActivity,
  TranscriptMessage,
} from "./thread-state.ts";

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

/** Which tool calls a transcript shows inside their messages. */
export interface CallIds {
  has(callId: string): boolean;
}

/** The notices a transcript placed, their entries and where the ranges stood after each; its run ends. */
interface Markers {
  readonly notices: readonly CompactionNotice[];
  readonly entries: readonly TranscriptEntry[];
  readonly runEnds: readonly TranscriptEntry[];
  readonly after: readonly RangeState[];
  /** False when notices shared a key: the next build places them all again. */
  readonly reusable: boolean;
}

/** What the transcript's markers and greying were computed from: the same inputs give the same ones. */
interface MarkerInputs {
  compactions: ThreadState["compactions"];
  runs: ThreadState["runs"] | undefined;
  coverage: Readonly<Record<string, CompactionCoverage>>;
  readFrom: number;
  /** The highest seq a removed range reaches: newer messages change no range's count. */
  coveredTo: number;
}

/**
 * A built transcript with what it was built from, so the next build (one more batch of streamed events)
 * reuses what did not change: the entries before the first message the batch changed are taken as they
 * are, and every later entry whose message, results, greying, notice or run is the same is the previous
 * entry object itself (memoized rows and derived views see no change).
 */
export interface TranscriptBuild {
  readonly entries: TranscriptEntry[];
  /** The agent's messages it was built from. */
  readonly log: MessageLog;
  /** Ids of every tool call of its messages: a call among them is drawn inside its message. */
  readonly callIds: CallIds;
  /** Its compaction notices and run ends, and all its markers in the order they are placed. */
  readonly markers: Markers;
  readonly ordered: readonly TranscriptEntry[];
  readonly markerInputs: MarkerInputs;
  /** Where the compaction in force cuts, and the messages below it still sent. */
  readonly inForce: number;
  readonly keptInForce: ReadonlySet<number>;
  /**
   * Per message index (and one past the last): how many entries, and markers, come before it, and the
   * latest time of the messages before it.
   */
  readonly entriesBefore: readonly number[];
  readonly markersBefore: readonly number[];
  readonly latestBefore: readonly number[];
  /** Its message entries with a failed tool result, in order (the navigator's error marks). */
  readonly failed: readonly MessageEntry[];
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
 * rebuild whatever the previous build was (a stale one only saves less). While a run streams, its cost
 * is the batch's: the entries before the first message the batch touched (a new message, a call that
 * got its result, a tool message a new call hides, a change of greying or of a marker placed there) are
 * the previous ones, unread. Coverage is read as immutable: a changed coverage is a new object.
 */
export function updateTranscript(
  previous: TranscriptBuild | null,
  state: TranscriptSource,
  agentId: string,
  coverage: Readonly<Record<string, CompactionCoverage>> = {},
): TranscriptBuild {
  const log = state.messages[agentId] ?? MessageLog.empty;
  const appended = previous !== null && log.extends(previous.log);
  const readFrom = state.messagesReadFrom?.[agentId] ?? -1;
  const inputs = previous?.markerInputs;
  const firstNew = appended ? log.at(previous.log.size) : undefined;
  const rangesHold =
    appended &&
    inputs !== undefined &&
    inputs.coverage === coverage &&
    inputs.readFrom === readFrom &&
    (firstNew === undefined || firstNew.seq > inputs.coveredTo);
  const sameMarkers = rangesHold && inputs.compactions === state.compactions && inputs.runs === state.runs;
  const placed = sameMarkers
    ? previous
    : placeMarkers(previous, state, agentId, log, coverage, readFrom, rangesHold);
  const { markers, ordered, markerInputs, inForce, keptInForce } = placed;

  // The first message whose entry (or the markers before it) may differ from the previous build's.
  let from = 0;
  if (appended) {
    from = previous.log.size;
    for (let index = previous.log.size; index < log.size; index++) {
      const message = log.at(index)!;
      if (message.role === "tool" && message.toolCallId)
        from = Math.min(from, log.callers(message.toolCallId)[0] ?? from);
      for (const call of message.toolCalls ?? []) from = Math.min(from, log.answers(call.id)[0] ?? from);
    }
    const sameKept = sameSeqs(previous.keptInForce, keptInForce);
    if (!sameKept) from = 0;
    else if (previous.inForce !== inForce)
      from = Math.min(from, log.lowerBound(Math.min(previous.inForce, inForce)));
    // Markers up to the first that differs from the previous build's are placed where they were.
    let differs = 0;
    if (ordered === previous.ordered) differs = Number.POSITIVE_INFINITY;
    else while (differs < ordered.length && ordered[differs] === previous.ordered[differs]) differs++;
    if (differs === ordered.length && differs === previous.ordered.length) differs = Number.POSITIVE_INFINITY;
    const placedBefore = (index: number) => {
      const count = previous.markersBefore[index] ?? 0;
      if (differs < count) return false;
      // A marker new at the first place left goes after the kept messages only if none is later than it
      // (messages are in seq order, not always in time order).
      const marker = ordered[count];
      const latest = previous.latestBefore[index] ?? Number.NEGATIVE_INFINITY;
      return differs > count || marker === undefined || markerAt(marker) >= latest;
    };
    while (from > 0 && !placedBefore(from)) from--;
  }
  const reused = appended ? (previous.entriesBefore[from] ?? 0) : 0;
  const entries = appended ? previous.entries.slice(0, reused) : [];
  const entriesBefore = appended ? previous.entriesBefore.slice(0, from) : [];
  const markersBefore = appended ? previous.markersBefore.slice(0, from) : [];
  const latestBefore = appended ? previous.latestBefore.slice(0, from + 1) : [Number.NEGATIVE_INFINITY];
  const failed = appended ? keptFailures(previous.failed, log.at(from)) : [];
  let markerIndex = appended ? (previous.markersBefore[from] ?? 0) : 0;
  // The previous message entries, walked beside the new ones (both in seq order).
  const before = previous?.entries ?? [];
  let cursor = reused;
  const resultOf = (callId: string) => log.at(log.answers(callId).at(-1) ?? -1);
  for (let index = from; index < log.size; index++) {
    const message = log.at(index)!;
    entriesBefore.push(entries.length);
    markersBefore.push(markerIndex);
    latestBefore.push(Math.max(latestBefore[index]!, message.at));
    while (markerIndex < ordered.length && markerAt(ordered[markerIndex]!) < message.at) {
      entries.push(ordered[markerIndex++]!);
    }
    if (message.role === "tool" && message.toolCallId && log.hasCall(message.toolCallId)) continue;
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
    let entry: MessageEntry;
    if (
      known &&
      known.message === message &&
      known.compacted === compacted &&
      (message.toolCalls ?? []).every((call) => known.results[call.id] === resultOf(call.id))
    ) {
      entry = known;
      cursor++;
    } else {
      const results: Record<string, TranscriptMessage> = {};
      for (const call of message.toolCalls ?? []) {
        const result = resultOf(call.id);
        if (result) results[call.id] = result;
      }
      entry = { kind: "message", key: `message:${message.id}`, message, results, compacted };
    }
    entries.push(entry);
    if (hasFailure(entry)) failed.push(entry);
  }
  entriesBefore.push(entries.length);
  markersBefore.push(markerIndex);
  for (const marker of ordered.slice(markerIndex)) entries.push(marker);
  return {
    entries,
    log,
    callIds: { has: (callId) => log.hasCall(callId) },
    markers,
    ordered,
    markerInputs,
    inForce,
    keptInForce,
    entriesBefore,
    markersBefore,
    latestBefore,
    failed,
  };
}

/**
 * The compaction notices (with their removed ranges) and run ends, placed in time; and the greying. On a
 * previous build whose ranges still hold (the same coverage and floor, no new message inside a range),
 * the notices up to the first that changed keep their entries and ranges: a compaction added costs
 * itself, not a range per compaction of the thread.
 */
function placeMarkers(
  previous: TranscriptBuild | null,
  state: TranscriptSource,
  agentId: string,
  log: MessageLog,
  coverage: Readonly<Record<string, CompactionCoverage>>,
  readFrom: number,
  rangesHold: boolean,
): Pick<TranscriptBuild, "markers" | "ordered" | "markerInputs" | "inForce" | "keptInForce"> {
  const notices = compactionNotices(state, agentId);
  const known = rangesHold && previous?.markers.reusable ? previous.markers : null;
  let same = 0;
  if (known) while (same < notices.length && notices[same] === known.notices[same]) same++;
  const ranges = removedRanges(
    notices.slice(same),
    log,
    coverage,
    readFrom,
    known?.after[same - 1] ?? undefined,
  );
  // The previous markers by key, read only when an entry is not where it was.
  let byKey: Map<string, TranscriptEntry> | null = null;
  const earlierOf = (entry: TranscriptEntry, index: number) => {
    const there = (entry.kind === "run" ? previous?.markers.runEnds : previous?.markers.entries)?.[index];
    if (there?.key === entry.key || !previous) return there;
    byKey ??= new Map(
      [...previous.markers.entries, ...previous.markers.runEnds].map((item) => [item.key, item]),
    );
    return byKey.get(entry.key);
  };
  const reuse = (entry: TranscriptEntry, index: number): TranscriptEntry => {
    const earlier = earlierOf(entry, index);
    const same =
      earlier !== undefined &&
      ((earlier.kind === "run" && entry.kind === "run" && earlier.run === entry.run) ||
        (earlier.kind === "compaction" &&
          entry.kind === "compaction" &&
          earlier.notice === entry.notice &&
          sameRange(earlier.removed, entry.removed)));
    return same ? earlier : entry;
  };
  const entries = known ? known.entries.slice(0, same) : [];
  for (let index = same; index < notices.length; index++) {
    const notice = notices[index]!;
    const removed = ranges.byKey.get(notice.key) ?? null;
    entries.push(reuse({ kind: "compaction", key: `compaction:${notice.key}`, notice, removed }, index));
  }
  let runEnds = known && previous?.markerInputs.runs === state.runs ? known.runEnds : null;
  if (!runEnds) {
    const ends: TranscriptEntry[] = [];
    for (const run of Object.values(state.runs ?? {}))
      if (run.agentId === agentId && RUN_ENDS.has(run.status))
        ends.push(reuse({ kind: "run", key: `run:${run.id}`, run }, ends.length));
    runEnds = ends;
  }
  // One marker per key, where its first notice is, as the last notice with that key says it.
  const keys = new Map<string, number>();
  let twice = false;
  for (const [index, entry] of [...entries, ...runEnds].entries()) {
    if (keys.has(entry.key)) twice = true;
    keys.set(entry.key, keys.get(entry.key) ?? index);
  }
  const order = (entry: TranscriptEntry) => keys.get(entry.key) ?? 0;
  // The previous order less the notices that changed, with the new ones: sorted, it is nearly in order.
  let ordered: TranscriptEntry[];
  if (twice) {
    // Notices that share a key (never from a real server): each key once, as its last notice says.
    const byKey = new Map<string, TranscriptEntry>();
    for (const entry of [...entries, ...runEnds]) byKey.set(entry.key, entry);
    ordered = [...byKey.values()];
  } else if (known && runEnds === known.runEnds) {
    const gone = new Set(known.entries.slice(same));
    ordered = previous!.ordered.filter((entry) => !gone.has(entry)).concat(entries.slice(same));
  } else ordered = [...entries, ...runEnds];
  ordered.sort((left, right) => markerAt(left) - markerAt(right) || order(left) - order(right));
  const after = known ? known.after.slice(0, same).concat(ranges.after) : ranges.after;
  return {
    // With keys twice, nothing is reused: the next build places them all again.
    markers: { notices, entries, runEnds, after, reusable: !twice },
    ordered,
    markerInputs: {
      compactions: state.compactions,
      runs: state.runs,
      coverage,
      readFrom,
      coveredTo: ranges.coveredTo,
    },
    inForce: ranges.boundary,
    keptInForce: new Set(ranges.keptInForce.map((kept) => kept.seq)),
  };
}

function sameSeqs(left: ReadonlySet<number>, right: ReadonlySet<number>): boolean {
  if (left === right) return true;
  if (left.size !== right.size) return false;
  for (const seq of left) if (!right.has(seq)) return false;
  return true;
}

/** Whether a message entry shows a failed tool call. */
function hasFailure(entry: MessageEntry): boolean {
  return (entry.message.toolCalls ?? []).some((call) => entry.results[call.id]?.toolStatus === "error");
}

/** The failures among the entries of messages before `message` (all of them when there is none). */
function keptFailures(
  failed: readonly MessageEntry[],
  message: TranscriptMessage | undefined,
): MessageEntry[] {
  if (message === undefined) return [...failed];
  let low = 0;
  let high = failed.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (bySeq(failed[middle]!.message, message) < 0) low = middle + 1;
    else high = middle;
  }
  return failed.slice(0, low);
}

function markerAt(entry: TranscriptEntry): number {
  if (entry.kind === "compaction") return entry.notice.at;
  if (entry.kind === "run") return entry.run.finishedAt ?? entry.run.at;
  return entry.message.at;
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
  for (const message of state.messages[agentId] ?? MessageLog.empty) {
    for (const call of message.toolCalls ?? []) shown.add(call.id);
  }
  return runningCalls(state.tools, agentId, shown);
}

/** runningTools, given the call ids the transcript shows (TranscriptBuild.callIds): no pass over the log. */
export function runningCalls(tools: ThreadState["tools"], agentId: string, shown: CallIds): ToolActivity[] {
  return tools
    .running()
    .filter((tool) => tool.agentId === agentId && tool.status === "running" && !shown.has(tool.callId));
}
