import type { CompactionNotice, Measurement, ThreadState } from "./thread-state.ts";
import type { TranscriptEntry } from "./transcript.ts";

/**
 * One meaning of "step" everywhere in the dashboard: the position in the agent's log, i.e. message #N.
 * A model turn adds its reply and one result per tool call, so a 40-turn task ends near step 100.
 */
export const STEP_MEANING =
  "A step is a position in the agent's log: step N is message #N. Each model turn adds its reply and one result per tool call, so steps grow by 2–3 per turn.";

/**
 * The measurements of an agent's series that were model turns: those whose request was sent (they carry
 * the call's cost). A step that ended in a compaction is measured too, and sent nothing. A series from
 * an older server has no cost on any point: each of its measurements counts, as it did then.
 */
export function modelTurns(series: readonly Measurement[]): Measurement[] {
  const sent = series.filter((point) => point.cost !== undefined);
  return sent.length > 0 ? sent : [...series];
}

export type MarkKind = "compaction" | "error" | "approval";

/** Something worth jumping to, placed at a step of the agent's log. */
export interface NavMark {
  kind: MarkKind;
  step: number;
  /** The transcript entry that shows it, when it has one (`compaction:<key>`, `message:<id>`, `run:<id>`). */
  entryKey: string | null;
  label: string;
}

/** A stretch of steps of the timeline, with what happened in it. */
export interface NavBin {
  fromStep: number;
  toStep: number;
  /** Model turns in it (the measurements whose request was sent: see modelTurns). */
  turns: number;
  compactions: number;
  errors: number;
  approvals: number;
  /** What a jump to this bin reaches: its first error, else its first compaction, else its start. */
  target: NavMark | null;
}

/** Bins the timeline has at most: one row of buttons stays readable whatever the run's length. */
export const NAV_BINS = 48;

/** The step of the agent's log an event happened at: that of the last measurement before it. */
export function stepAtEvent(measurements: readonly Measurement[], eventSeq: number): number | null {
  let low = 0;
  let high = measurements.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((measurements[middle]?.eventSeq ?? 0) < eventSeq) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? null : (measurements[low - 1]?.step ?? null);
}

function stepAtTime(measurements: readonly Measurement[], at: number): number | null {
  let step: number | null = null;
  for (const point of measurements) {
    if (point.at > at) break;
    step = point.step;
  }
  return step;
}

/**
 * Compactions, errors and approvals of one agent, each at its step, oldest first. Errors are failed tool
 * calls (of the messages read so far), failed runs and failed compactions; approvals are the decisions
 * taken and the calls still waiting. `entries`: the transcript's, or only those with a failed call
 * (TranscriptBuild.failed, what a streamed batch keeps up to date without a pass over the log). `memo`:
 * where the marks of the last call are kept, so a streamed batch places only the new compactions.
 */
export function navigatorMarks(
  thread: Pick<ThreadState, "measurements" | "runs" | "decisions" | "approvals">,
  agentId: string,
  notices: readonly CompactionNotice[],
  entries: readonly TranscriptEntry[],
  memo?: MarksMemo,
): NavMark[] {
  const measurements = thread.measurements[agentId] ?? [];
  const first = measurements[0]?.step ?? 0;
  const marks: NavMark[] = compactionMarks(agentId, notices, measurements, memo).filter(
    (mark): mark is NavMark => mark !== null,
  );
  for (const entry of entries) {
    if (entry.kind !== "message") continue;
    for (const call of entry.message.toolCalls ?? []) {
      const status = entry.results[call.id]?.toolStatus;
      const decision = thread.decisions[`${agentId}:${call.id}`];
      // A call the person denied did not fail: it is an approval, not an error.
      if (status === "error") {
        if (decision?.decision !== "deny")
          marks.push({
            kind: "error",
            step: entry.message.seq,
            entryKey: entry.key,
            label: `${call.function.name} failed`,
          });
      }
    }
  }
  for (const run of Object.values(thread.runs)) {
    if (run.agentId !== agentId || run.status !== "failed") continue;
    const step = stepAtTime(measurements, run.finishedAt ?? run.at) ?? first;
    marks.push({
      kind: "error",
      step,
      entryKey: `run:${run.id}`,
      label: `run failed: ${run.error?.message ?? ""}`,
    });
  }
  for (const [key, decision] of Object.entries(thread.decisions)) {
    if (!key.startsWith(`${agentId}:`) || decision.eventSeq === undefined) continue;
    const step = stepAtEvent(measurements, decision.eventSeq) ?? first;
    marks.push({
      kind: "approval",
      step,
      entryKey: null,
      label: `call ${decision.decision}d at step ${step}`,
    });
  }
  for (const request of Object.values(thread.approvals)) {
    if (request.agentId !== agentId) continue;
    const step = stepAtTime(measurements, request.requestedAt) ?? first;
    marks.push({ kind: "approval", step, entryKey: null, label: `${request.name} waits for you` });
  }
  return marks.sort((left, right) => left.step - right.step);
}

/** The compaction marks made last, and from what: the next batch of the same agent redoes only the new ones. */
export interface MarksMemo {
  current: {
    agentId: string;
    notices: readonly CompactionNotice[];
    series: readonly Measurement[];
    marks: (NavMark | null)[];
  } | null;
}

/**
 * Each notice's mark (none for a skipped or started compaction). A notice at or before the last point of
 * the series the previous marks were made from keeps its mark while that series is still the start of
 * this one (its last point the same object: nothing was inserted before it), since later points cannot
 * change the step it happened at.
 */
function compactionMarks(
  agentId: string,
  notices: readonly CompactionNotice[],
  series: readonly Measurement[],
  memo: MarksMemo | undefined,
): (NavMark | null)[] {
  const made = memo?.current?.agentId === agentId ? memo.current : undefined;
  const known = made?.series.length ?? 0;
  const extends_ =
    made !== undefined &&
    known > 0 &&
    series.length >= known &&
    series[0] === made.series[0] &&
    series[known - 1] === made.series[known - 1];
  const settled = extends_
    ? (made.series[known - 1]?.eventSeq ?? Number.NEGATIVE_INFINITY)
    : Number.NEGATIVE_INFINITY;
  const first = series[0]?.step ?? 0;
  const marks = notices.map((notice, index): NavMark | null => {
    if (extends_ && made.notices[index] === notice && notice.eventSeq <= settled)
      return made.marks[index] ?? null;
    if (notice.phase === "skipped" || notice.phase === "started") return null;
    const step = stepAtEvent(series, notice.eventSeq) ?? first;
    const entryKey = `compaction:${notice.key}`;
    if (notice.phase === "failed")
      return { kind: "error", step, entryKey, label: `compaction failed: ${notice.reason ?? ""}` };
    return { kind: "compaction", step, entryKey, label: `compaction at step ${step}` };
  });
  if (memo) memo.current = { agentId, notices, series, marks };
  return marks;
}

/**
 * The timeline in at most NAV_BINS bins of equal step width between the first and last step, so a run of
 * 1,000 compactions is a row of counts, not a solid band of marks.
 */
export function binTimeline(
  measurements: readonly Measurement[],
  marks: readonly NavMark[],
  bins = NAV_BINS,
): NavBin[] {
  const steps = [...measurements.map((point) => point.step), ...marks.map((mark) => mark.step)];
  if (steps.length === 0) return [];
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  for (const step of steps) {
    low = Math.min(low, step);
    high = Math.max(high, step);
  }
  const width = Math.max(1, Math.ceil((high - low + 1) / bins));
  const count = Math.ceil((high - low + 1) / width);
  const result: NavBin[] = Array.from({ length: count }, (_, index) => ({
    fromStep: low + index * width,
    toStep: Math.min(high, low + (index + 1) * width - 1),
    turns: 0,
    compactions: 0,
    errors: 0,
    approvals: 0,
    target: null,
  }));
  const binOf = (step: number) => result[Math.min(count - 1, Math.floor((step - low) / width))];
  for (const point of modelTurns(measurements)) {
    const bin = binOf(point.step);
    if (bin) bin.turns++;
  }
  for (const mark of marks) {
    const bin = binOf(mark.step);
    if (!bin) continue;
    if (mark.kind === "compaction") bin.compactions++;
    else if (mark.kind === "error") bin.errors++;
    else bin.approvals++;
    const rank = { error: 0, compaction: 1, approval: 2 } as const;
    if (!bin.target || rank[mark.kind] < rank[bin.target.kind]) bin.target = mark;
  }
  return result;
}

/** "Steps 120–145: 12 model turns, 3 compactions, 1 error" — what a bin says to a screen reader. */
export function binLabel(bin: NavBin): string {
  const parts = [`${bin.turns} model turn${bin.turns === 1 ? "" : "s"}`];
  if (bin.compactions) parts.push(`${bin.compactions} compaction${bin.compactions === 1 ? "" : "s"}`);
  if (bin.errors) parts.push(`${bin.errors} error${bin.errors === 1 ? "" : "s"}`);
  if (bin.approvals) parts.push(`${bin.approvals} approval${bin.approvals === 1 ? "" : "s"}`);
  const range = bin.fromStep === bin.toStep ? `Step ${bin.fromStep}` : `Steps ${bin.fromStep}–${bin.toStep}`;
  return `${range}: ${parts.join(", ")}`;
}
