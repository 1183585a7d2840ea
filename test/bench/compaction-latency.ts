import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runScriptedAgent, type ScriptedAgentRun } from "./scripted-agent-run.ts";
import { quantile, renderTable } from "./stats.ts";

// Issue 31's latency goal: with a summarizer that takes 2 s, the steps at which a compaction happens
// should take at most 1.2× an ordinary step (p50), because the summary was made in the background
// (backgroundRatio) before the trigger. Measured against the same agent with background summaries off.

const RESULTS = fileURLToPath(new URL("./results/compaction-latency.json", import.meta.url));

export interface CompactionLatencyFigures {
  label: string;
  backgroundRatio: number;
  steps: number;
  compactions: number;
  /** Compactions that applied a summary prepared in the background. */
  applied: number;
  ordinaryP50Ms: number;
  compactionP50Ms: number;
  /** p50 of the compaction steps that applied a prepared summary (NaN: none did). */
  appliedP50Ms: number;
  /** compactionP50Ms ÷ ordinaryP50Ms. */
  ratio: number;
}

/**
 * Step intervals of the agent: from one answer (an assistant `message.completed`) to the next. An interval in which
 * a compaction completed is a compaction step; the others are ordinary.
 */
function stepIntervals(events: ScriptedAgentRun["events"]) {
  const ordinary: number[] = [];
  const compaction: number[] = [];
  const applied: number[] = [];
  let last: number | null = null;
  let compacted: "no" | "own" | "prepared" = "no";
  for (const { event, receivedAt } of events) {
    if (event.type === "compaction.completed") compacted = event.data.prepared ? "prepared" : "own";
    if (event.type !== "message.completed" || event.data.role !== "assistant") continue;
    if (last !== null) {
      const interval = receivedAt - last;
      (compacted === "no" ? ordinary : compaction).push(interval);
      if (compacted === "prepared") applied.push(interval);
    }
    last = receivedAt;
    compacted = "no";
  }
  return { ordinary, compaction, applied };
}

/** Every model call takes this long (a fast model); a summary takes `summaryDelayMs` more. */
const CALL_DELAY_MS = 300;

async function runOne(
  label: string,
  maxInputTokens: number,
  backgroundRatio: number,
  summaryDelayMs: number,
) {
  return runScriptedAgent(
    {
      maxInputTokens,
      // About the same number of compactions at either window.
      simSteps: maxInputTokens > 8_000 ? 100 : 60,
      profile: { backgroundRatio },
      sim: { delayMs: CALL_DELAY_MS, summaryDelayMs },
    },
    async ({ events }): Promise<CompactionLatencyFigures> => {
      const { ordinary, compaction, applied } = stepIntervals(events);
      const completed = events.filter(({ event }) => event.type === "compaction.completed");
      const ordinaryP50Ms = quantile(ordinary, 0.5);
      const compactionP50Ms = quantile(compaction, 0.5);
      return {
        label,
        backgroundRatio,
        steps: ordinary.length + compaction.length + 1,
        compactions: completed.length,
        applied: completed.filter(({ event }) => event.type === "compaction.completed" && event.data.prepared)
          .length,
        ordinaryP50Ms,
        compactionP50Ms,
        appliedP50Ms: quantile(applied, 0.5),
        ratio: compactionP50Ms / ordinaryP50Ms,
      };
    },
  );
}

/**
 * The default agent at 8k and 16k, calls of 300 ms, summaries 2 s longer: background summaries from 0.6
 * of the trigger (the default) and 0.8, and off.
 */
export async function runCompactionLatencyBench(summaryDelayMs = 2_000): Promise<CompactionLatencyFigures[]> {
  const figures: CompactionLatencyFigures[] = [];
  for (const window of [8_000, 16_000]) {
    const at = `${window / 1_000}k`;
    figures.push(await runOne(`${at}, background from 0.6`, window, 0.6, summaryDelayMs));
    figures.push(await runOne(`${at}, background from 0.8`, window, 0.8, summaryDelayMs));
    figures.push(await runOne(`${at}, foreground only (0)`, window, 0, summaryDelayMs));
  }
  console.log(
    renderTable(
      [
        "",
        "steps",
        "compactions",
        "applied prepared",
        "ordinary p50",
        "compaction step p50",
        "applied step p50",
        "ratio (goal ≤ 1.2)",
      ],
      figures.map((row) => [
        row.label,
        String(row.steps),
        String(row.compactions),
        String(row.applied),
        `${row.ordinaryP50Ms.toFixed(0)} ms`,
        `${row.compactionP50Ms.toFixed(0)} ms`,
        Number.isNaN(row.appliedP50Ms) ? "n/a" : `${row.appliedP50Ms.toFixed(0)} ms`,
        row.ratio.toFixed(2),
      ]),
    ),
  );
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(
    RESULTS,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), summaryDelayMs, figures }, null, 2)}\n`,
  );
  return figures;
}
