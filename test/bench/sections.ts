import type { BenchAdapter } from "./adapters/adapter.ts";
import { longrunDeterministicAdapter, longrunWithCompactionAdapter } from "./adapters/longrun.ts";
import { createLongrunStableAdapter } from "./adapters/longrun-stable.ts";
import { installBenchLibraries } from "./bench-libraries.ts";
import { runCompactionBench } from "./compaction-bench.ts";
import { runCompactionLatencyBench } from "./compaction-latency.ts";
import { runCompactionRateBench } from "./compaction-rate.ts";
import { runDashboardBatchBench } from "./dashboard-batch.ts";
import { runDashboardLongrunBench } from "./dashboard-longrun.ts";
import { runFairShareBench } from "./fair-share.ts";
import { runLeanStepBench } from "./lean-step.ts";
import { runLongTextBench } from "./long-text.ts";
import { runObservabilityBench } from "./observability.ts";
import { runPlanCompactionBench } from "./plan-compaction.ts";
import { runStepsBench } from "./steps.ts";
import { runWorkerScalingBench } from "./worker-scaling.ts";
import { runWsFanoutBench } from "./ws-fanout.ts";

/** One bench section `npm run bench -- <name>` can run. */
export interface BenchSection {
  name: string;
  description: string;
  run(): Promise<void>;
}

/** Budgets of the compaction bench (tokens). */
export const COMPACTION_BUDGETS = [16_000, 64_000];

/** Measured call points per file (LONGRUN_BENCH_SAMPLES overrides). */
const SAMPLES_PER_FILE = Number(process.env.LONGRUN_BENCH_SAMPLES ?? 60);

/** Without a count cache each library call tokenizes the whole prefix: fewer samples keep the bench short. */
function fewerSamples(adapter: BenchAdapter): BenchAdapter {
  return { ...adapter, samplesPerFile: Math.max(1, Math.round(SAMPLES_PER_FILE / 5)) };
}

/**
 * Registered sections, run in this order. Other benches (ws fan-out,
 * steps/s) add an entry here.
 */
export const sections: BenchSection[] = [
  {
    name: "compaction",
    description:
      "projection vs trimMessages / ClearToolUsesEdit / pruneMessages on the corpus at 16k and 64k",
    async run() {
      // The compared libraries are installed on first use (bench-libraries.ts), before their adapters load.
      await installBenchLibraries();
      const { createClearToolUsesAdapter } = await import("./libraries/clear-tool-uses.ts");
      const { pruneMessagesAdapter } = await import("./libraries/prune-messages.ts");
      const { createTrimMessagesAdapter } = await import("./libraries/trim-messages.ts");
      await runCompactionBench({
        budgets: COMPACTION_BUDGETS,
        samplesPerFile: SAMPLES_PER_FILE,
        adapters: [
          longrunDeterministicAdapter,
          createLongrunStableAdapter(false),
          longrunWithCompactionAdapter,
          createLongrunStableAdapter(true),
          createTrimMessagesAdapter("cached"),
          createClearToolUsesAdapter("cached"),
          pruneMessagesAdapter,
          fewerSamples(createTrimMessagesAdapter("per-call")),
          fewerSamples(createClearToolUsesAdapter("per-call")),
        ],
      });
    },
  },
  {
    name: "plan-compaction",
    description:
      "planCompaction per compaction on corpus prefixes: stored per-message counts vs tokenizing every rendering",
    async run() {
      await runPlanCompactionBench({ budgets: COMPACTION_BUDGETS, everyNth: 7 });
    },
  },
  {
    name: "compaction-rate",
    description: "compactions per 100 steps of one agent (default scripted sim agent) at 8k and 16k windows",
    async run() {
      await runCompactionRateBench({ windows: [8_000, 16_000], simSteps: 120 });
    },
  },
  {
    name: "compaction-latency",
    description:
      "p50 of the steps at which a compaction happens ÷ an ordinary step's, 2 s summarizer, background summaries on and off",
    async run() {
      await runCompactionLatencyBench();
    },
  },
  {
    name: "ws-fanout",
    description:
      "gateway vs raw ws broadcast, 1,000 subscribers in separate processes: saturation frames/s, server CPU, latency",
    async run() {
      await runWsFanoutBench({
        subscribers: 1_000,
        clientProcesses: 2,
        rounds: Number(process.env.LONGRUN_BENCH_WS_ROUNDS ?? 3),
        burstEvents: 300,
        burstPerTurn: 10,
        pacedEvents: 100,
        pacedRate: 50,
      });
    },
  },
  {
    name: "steps",
    description: "agent steps/s on BullMQ + Redis + libSQL (1 and 2 in-process workers, 0 and 50 ms model)",
    async run() {
      await runStepsBench({ threads: 8, simSteps: 20, singleAgentSteps: 120 });
    },
  },
  {
    name: "lean-step",
    description:
      "per-step cost outside the model call, transactions and statements per step, vs a raw queue link",
    async run() {
      await runLeanStepBench({ simSteps: 120, links: 300 });
    },
  },
  {
    name: "observability",
    description:
      "per-step cost of logs (silent, info, debug) and OTLP tracing, each configuration in its own process, as ratios to logs silent + tracing off",
    async run() {
      await runObservabilityBench({
        rounds: Number(process.env.LONGRUN_BENCH_OBSERVABILITY_ROUNDS ?? 6),
        simSteps: 200,
        window: 16_000,
      });
    },
  },
  {
    name: "long-text",
    description:
      "worst /healthz of an embedded server taking a fresh 200,000-character message without whitespace vs a short one (REST, gateway)",
    async run() {
      await runLongTextBench({
        rounds: Number(process.env.LONGRUN_BENCH_LONG_TEXT_ROUNDS ?? 2),
        chars: 200_000,
      });
    },
  },
  {
    name: "fair-share",
    description: "tenant A's p50 (runs, creates, lists) while tenant B floods, as a ratio of A's idle p50",
    async run() {
      await runFairShareBench();
    },
  },
  {
    name: "worker-scaling",
    description: "steps/s on 1 vs 2 worker processes, 16 and 32 agents, 50 ms model",
    async run() {
      await runWorkerScalingBench({ simSteps: 20, agentCounts: [16, 32] });
    },
  },
  {
    name: "dashboard-longrun",
    description:
      "dashboard in Chromium on a 5,000-step thread vs a 40-step one: time to open, frame times scrolling during a run, page memory",
    async run() {
      await runDashboardLongrunBench({
        steps: Number(process.env.LONGRUN_BENCH_DASHBOARD_STEPS ?? 5000),
        baselineSteps: 40,
      });
    },
  },
  {
    name: "dashboard-batch",
    description:
      "dashboard state per streamed batch (events applied, transcript, running tools, navigator marks) on a 1,500-step thread vs a 40-step one, built on the previous build vs from nothing",
    async run() {
      runDashboardBatchBench({
        steps: Number(process.env.LONGRUN_BENCH_DASHBOARD_STEPS ?? 1500),
        baselineSteps: 40,
      });
    },
  },
];
