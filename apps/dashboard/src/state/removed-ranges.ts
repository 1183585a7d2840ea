import type { CompactionCoverage } from "@longrun/protocol";
import type { MessageLog } from "./message-log.ts";
import type { CompactionNotice, ThreadState } from "./thread-state.ts";

// What each compaction took out of the model's context, as the server's projection says (its coverage),
// and the compaction notices of an agent in order: the transcript greys out exactly these ranges.

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

/**
 * For each completed compaction, what the server's projection says it took out of the context (from the
 * previous cutoff up to its own, less the system prompt and pinned task it still sends), and the boundary
 * in force now with the messages below it still sent. Nothing is greyed on a guess: a compaction whose
 * coverage the server has not given yet (GET /v1/agents/:id/compactions) leaves the boundary where it was.
 */
export function removedRanges(
  notices: readonly CompactionNotice[],
  messages: MessageLog,
  coverage: Readonly<Record<string, CompactionCoverage>>,
  readFrom = -1,
  start: RangeState = NO_RANGE,
): RangeState & {
  byKey: Map<string, RemovedRange>;
  /** The boundary, messages kept and reach after each notice. */
  after: RangeState[];
} {
  const byKey = new Map<string, RemovedRange>();
  let { boundary, keptInForce, coveredTo } = start;
  const after: RangeState[] = [];
  for (const notice of notices) {
    const covered =
      notice.phase === "completed" && notice.compactionId ? coverage[notice.compactionId] : undefined;
    if (covered && covered.toSeq >= covered.fromSeq) {
      const kept = new Set(covered.kept.map((item) => item.seq));
      let fromSeq = covered.fromSeq;
      let toSeq = covered.toSeq;
      while (fromSeq <= toSeq && kept.has(fromSeq)) fromSeq++;
      while (toSeq >= fromSeq && kept.has(toSeq)) toSeq--;
      // Messages are in seq order: count by two binary searches, not a pass per compaction.
      let count = messages.lowerBound(covered.toSeq + 1) - messages.lowerBound(covered.fromSeq);
      for (const seq of kept) {
        const held = messages.at(messages.lowerBound(seq))?.seq === seq;
        if (seq >= covered.fromSeq && seq <= covered.toSeq && held) count--;
      }
      byKey.set(notice.key, {
        fromSeq,
        toSeq,
        kept: covered.kept,
        count,
        complete: covered.fromSeq > readFrom,
      });
      boundary = Math.max(boundary, covered.toSeq + 1);
      keptInForce = covered.kept;
      coveredTo = Math.max(coveredTo, covered.toSeq);
    }
    after.push({ boundary, keptInForce, coveredTo });
  }
  return { byKey, boundary, keptInForce, coveredTo, after };
}

/** Where the compactions so far leave the context: the boundary in force, what it keeps, the reach. */
export interface RangeState {
  boundary: number;
  keptInForce: CompactionCoverage["kept"];
  /** The highest seq a range covers (newer messages change none of them). */
  coveredTo: number;
}

const NO_RANGE: RangeState = { boundary: 0, keptInForce: [], coveredTo: Number.NEGATIVE_INFINITY };

/** One notice per compaction of the agent, oldest first; a compaction id reported twice shows once. */
export function compactionNotices(
  state: Pick<ThreadState, "compactions">,
  agentId: string,
): readonly CompactionNotice[] {
  // A streamed batch seldom changes the compactions: the same record gives the same list, not a sort.
  const byAgent = noticesOf.get(state.compactions) ?? new Map<string, CompactionNotice[]>();
  noticesOf.set(state.compactions, byAgent);
  const notices = byAgent.get(agentId) ?? sortedNotices(state.compactions, agentId);
  byAgent.set(agentId, notices);
  return notices;
}

const noticesOf = new WeakMap<ThreadState["compactions"], Map<string, CompactionNotice[]>>();

function sortedNotices(compactions: ThreadState["compactions"], agentId: string): CompactionNotice[] {
  const byIdentity = new Map<string, CompactionNotice>();
  for (const notice of Object.values(compactions)) {
    if (notice.agentId !== agentId) continue;
    const identity = notice.compactionId ?? `key:${notice.key}`;
    const known = byIdentity.get(identity);
    if (!known || known.eventSeq < notice.eventSeq) byIdentity.set(identity, notice);
  }
  return [...byIdentity.values()].sort((left, right) => left.at - right.at || left.eventSeq - right.eventSeq);
}
