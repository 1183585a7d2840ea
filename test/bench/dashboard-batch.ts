import type { CompactionCoverage, LongrunEvent } from "@longrun/protocol";
import { applyEvents } from "../../apps/dashboard/src/state/apply-events.ts";
import { type MarksMemo, navigatorMarks } from "../../apps/dashboard/src/state/navigator.ts";
import { compactionNotices } from "../../apps/dashboard/src/state/removed-ranges.ts";
import { emptyThreadState, type ThreadState } from "../../apps/dashboard/src/state/thread-state.ts";
import {
  buildTranscript,
  runningCalls,
  runningTools,
  type TranscriptBuild,
  updateTranscript,
} from "../../apps/dashboard/src/state/transcript.ts";
import { renderTable } from "./stats.ts";

// What one streamed batch costs the dashboard's state outside the browser (no server, no drawing): the
// events applied, the transcript built, the loose running tools and the navigator's marks, on a thread
// of N steps vs a short one, with the transcript built on the previous build (as the page does) and from
// nothing (a full rebuild). Figures are ratios within the run; the page's frame times are dashboard-longrun's.

const AGENT = "a-root";
const saved = { collapse: 0, truncate: 0, microcompact: 0 };
/** A compaction every this many steps: a 1,500-step sim thread at 8k tokens has ~220. */
const COMPACT_EVERY = 7;
const BATCH = 8;
const BATCHES = 60;

/** The events of `steps` model turns (call, result, measurement), with a compaction every few turns. */

function turnEvents(
  fromStep: number,
  steps: number,
  startSeq: number,
  coverage: Record<string, CompactionCoverage>,
) {
  const events: LongrunEvent[] = [];
  let seq = startSeq;
  const event = (type: string, data: unknown, extra: { runId?: string } = {}) =>
    events.push({
      threadId: "t1",
      seq: ++seq,
      agentId: AGENT,
      type,
      data,
      at: seq,
      ...extra,
    } as LongrunEvent);
  for (let step = fromStep; step < fromStep + steps; step++) {
    const callId = `c${step}`;
    event("message.completed", {
      messageId: `m${step * 2}`,
      seq: step * 2,
      role: "assistant",
      content: `turn ${step}`,
      toolCalls: [{ id: callId, type: "function", function: { name: "run_command", arguments: "{}" } }],
    });
    event("tool.started", { callId, name: "run_command", arguments: "{}" });
    event("tool.completed", {
      callId,
      name: "run_command",
      status: step % 97 === 0 ? "error" : "ok",
      output: "",
    });
    event("message.completed", {
      messageId: `m${step * 2 + 1}`,
      seq: step * 2 + 1,
      role: "tool",
      content: "out",
      toolCallId: callId,
      toolStatus: step % 97 === 0 ? "error" : "ok",
    });
    event("context.measured", {
      step: step * 2 + 1,
      rawTokens: 7000,
      projectedTokens: 5000,
      maxInputTokens: 8000,
      triggerTokens: 6000,
      saved,
      needsCompaction: false,
    });
    if (step % COMPACT_EVERY === COMPACT_EVERY - 1) {
      const id = `cmp${step}`;
      event("compaction.completed", {
        compactionKey: `k${step}`,
        compactionId: id,
        strategy: "partial",
        trigger: "auto",
        tokensBefore: 7000,
        tokensAfter: 3000,
        saved,
        cutoffMessageId: null,
        restored: [],
      });
      coverage[id] = { fromSeq: Math.max(2, (step - COMPACT_EVERY) * 2), toSeq: step * 2 - 4, kept: [] };
    }
  }
  return { events, seq };
}

/** Mean ms per batch of BATCHES batches streamed into a thread of `steps` turns. */
function measure(steps: number, incremental: boolean): number {
  const coverage: Record<string, CompactionCoverage> = {};
  const history = turnEvents(0, steps, 0, coverage);
  let state: ThreadState = applyEvents(emptyThreadState("t1"), history.events);
  let build: TranscriptBuild | null = updateTranscript(null, state, AGENT, coverage);
  // Events of the streamed turns, BATCH at a time.
  const streamed = turnEvents(steps, Math.ceil((BATCH * BATCHES) / 5) + 1, history.seq, coverage).events;
  const marks: MarksMemo = { current: null };
  let total = 0;
  let kept = 0;
  for (let batch = 0; batch < BATCHES; batch++) {
    const events = streamed.slice(batch * BATCH, (batch + 1) * BATCH);
    const started = performance.now();
    state = applyEvents(state, events);
    let entries: readonly unknown[];
    if (incremental) {
      build = updateTranscript(build, state, AGENT, coverage);
      runningCalls(state.tools, AGENT, build.callIds);
      entries = build.entries;
      // The page gives the navigator the entries with a failed call, which the build keeps.
      navigatorMarks(state, AGENT, compactionNotices(state, AGENT), build.failed, marks);
    } else {
      const all = buildTranscript(state, AGENT, coverage);
      runningTools(state, AGENT);
      entries = all;
      navigatorMarks(state, AGENT, compactionNotices(state, AGENT), all);
    }
    total += performance.now() - started;
    kept += entries.length;
  }
  if (kept === 0) throw new Error("no transcript entries were built");
  return total / BATCHES;
}

/** `npm run bench -- dashboard-batch`. */
export function runDashboardBatchBench(options: { steps: number; baselineSteps: number }): void {
  // Warm-up (JIT), then the measured order alternates so neither variant always runs on a warmer heap.
  measure(options.baselineSteps, true);
  measure(options.baselineSteps, false);
  const rows: Record<string, number> = {};
  for (const round of [0, 1]) {
    for (const [name, steps, incremental] of [
      ["short, incremental", options.baselineSteps, true],
      ["short, full rebuild", options.baselineSteps, false],
      ["long, incremental", options.steps, true],
      ["long, full rebuild", options.steps, false],
    ] as const) {
      const key = `${name}`;
      const ms = measure(steps, incremental);
      rows[key] = round === 0 ? ms : Math.min(rows[key] ?? ms, ms);
    }
  }
  const cell = (ms: number | undefined) => `${(ms ?? 0).toFixed(2)} ms`;
  console.log(
    renderTable(
      ["per batch of 8 events", `${options.baselineSteps} steps`, `${options.steps} steps`, "long / short"],
      [
        [
          "incremental (the page)",
          cell(rows["short, incremental"]),
          cell(rows["long, incremental"]),
          `×${((rows["long, incremental"] ?? 0) / (rows["short, incremental"] ?? 1)).toFixed(1)}`,
        ],
        [
          "full rebuild",
          cell(rows["short, full rebuild"]),
          cell(rows["long, full rebuild"]),
          `×${((rows["long, full rebuild"] ?? 0) / (rows["short, full rebuild"] ?? 1)).toFixed(1)}`,
        ],
        [
          "full / incremental",
          `×${((rows["short, full rebuild"] ?? 0) / (rows["short, incremental"] ?? 1)).toFixed(1)}`,
          `×${((rows["long, full rebuild"] ?? 0) / (rows["long, incremental"] ?? 1)).toFixed(1)}`,
          "",
        ],
      ],
    ),
  );
  console.log(
    `  mean of ${BATCHES} batches (the lower of two rounds): events applied, transcript built, running tools, navigator marks; no drawing`,
  );
}
