import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildRuntime, connectDistributed, loadConfig } from "@longrun/cli";
import { ModelProfile } from "@longrun/protocol";
import { createBullmqQueue } from "@longrun/queue";
import { createThreadWithRoot } from "@longrun/runtime";
import { simModelName, startSimModel } from "@longrun/sim-model";
import { createTempWorkspace, createTestRedis } from "@longrun/testing";
import { startWorker } from "@longrun/worker";
import { type ModelCall, stepTimes, timedModel } from "./bench-infra.ts";
import { quantile, renderTable } from "./stats.ts";

// Agent steps per second on the distributed stack (BullMQ on Redis, libSQL file, sim model over HTTP).
// Workers run IN THIS PROCESS (one or two `startWorker` instances, each with its own BullMQ handle and
// agent concurrency 4), sharing one store connection: NOTES.md, two libSQL connections in one process
// deadlock. Two in-process workers add queue slots, not CPU: on two cores that is the honest comparison.

const RESULTS = fileURLToPath(new URL("./results/steps.json", import.meta.url));
const AGENT_CONCURRENCY = 4;

export interface StepsFigures {
  label: string;
  workers: number;
  simLatencyMs: number;
  threads: number;
  steps: number;
  compactions: number;
  seconds: number;
  stepsPerSecond: number;
  /** Median time per step outside the model call (only for single-agent runs, where calls are sequential). */
  outsideModelMedianMs: number | null;
  outsideModelP90Ms: number | null;
  compactionsPer100Steps: number;
}

interface Scenario {
  label: string;
  workers: number;
  simLatencyMs: number;
  threads: number;
  simSteps: number;
  maxInputTokens: number;
}

async function runScenario(scenario: Scenario): Promise<StepsFigures> {
  const redis = await createTestRedis();
  const sim = await startSimModel({ port: 0, logBodies: false, delayMs: scenario.simLatencyMs });
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-steps-"));
  const workspace = await createTempWorkspace();
  const calls: ModelCall[] = [];
  const config = loadConfig({
    REDIS_URL: redis.url,
    LONGRUN_QUEUE_PREFIX: redis.prefix,
    DATABASE_URL: `file:${join(dataDir, "longrun.db")}`,
    LONGRUN_DATA_DIR: dataDir,
    OPENAI_BASE_URL: sim.baseURL,
    OPENAI_API_KEY: "sim",
    LONGRUN_TIME_ZONE: "UTC",
  });
  const { infra, redis: connection } = await connectDistributed(config);
  infra.model = timedModel(sim.baseURL, calls);
  const runtime = buildRuntime(infra, config);
  const queues = [infra.queue];
  for (let index = 1; index < scenario.workers; index++) {
    queues.push(createBullmqQueue({ connection: redis.url, prefix: redis.prefix, onError: () => undefined }));
  }
  const workers = await Promise.all(
    queues.map((queue, index) =>
      startWorker({
        deps: runtime.deps,
        coordinator: runtime.coordinator,
        runControl: runtime.runControl,
        queue,
        bus: infra.bus,
        registry: infra.workers,
        concurrency: { agent: AGENT_CONCURRENCY, compaction: 2 },
        workerId: `bench-${index}`,
      }),
    ),
  );
  const finished = new Set<string>();
  let onFinished = () => {};
  const unsubscribe = await infra.bus.subscribe("events", (message) => {
    const event = message;
    if (event.runId && ["run.completed", "run.failed", "run.cancelled"].includes(event.type)) {
      finished.add(event.runId);
      onFinished();
    }
  });
  try {
    const modelProfile = ModelProfile.parse({
      model: simModelName({ steps: scenario.simSteps, ctx: scenario.maxInputTokens }),
      maxInputTokens: scenario.maxInputTokens,
    });
    const roots: string[] = [];
    const started = performance.now();
    const runIds = await Promise.all(
      Array.from({ length: scenario.threads }, async (_, index) => {
        const { thread, rootAgentId } = await createThreadWithRoot(runtime.deps, {
          tenantId: "bench",
          title: `bench ${index}`,
          workspaceDir: workspace.dir,
          modelProfile,
        });
        roots.push(rootAgentId);
        const admitted = await runtime.runControl.admitMessage({
          threadId: thread.id,
          content: "Survey the inventory project and keep notes.",
        });
        return admitted.runId;
      }),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${scenario.label}: runs did not finish`)), 240_000);
      onFinished = () => {
        if (runIds.every((id) => finished.has(id))) {
          clearTimeout(timer);
          resolve();
        }
      };
      onFinished();
    });
    const seconds = (performance.now() - started) / 1000;
    let compactions = 0;
    for (const root of roots) compactions += (await infra.store.compactions.list(root)).length;
    const steps = calls.filter((call) => !call.summary).length;
    // Single agent: calls are sequential, so the gap between one step's model answer and the next step's
    // request is the step's time outside the model (queue hop, appends, events, tools). Gaps that
    // contain a compaction are left out: compaction is counted apart.
    const gaps = scenario.threads === 1 ? stepTimes(calls).outsideModel : [];
    return {
      label: scenario.label,
      workers: scenario.workers,
      simLatencyMs: scenario.simLatencyMs,
      threads: scenario.threads,
      steps,
      compactions,
      seconds,
      stepsPerSecond: steps / seconds,
      outsideModelMedianMs: gaps.length > 0 ? quantile(gaps, 0.5) : null,
      outsideModelP90Ms: gaps.length > 0 ? quantile(gaps, 0.9) : null,
      compactionsPer100Steps: (compactions / Math.max(1, steps)) * 100,
    };
  } finally {
    await unsubscribe();
    await Promise.all(workers.map((worker) => worker.close(1_000)));
    await infra.bus.close();
    await infra.store.close();
    connection.disconnect();
    await sim.close();
    await workspace.cleanup();
    await redis.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Runs the steps/s matrix (1 and 2 workers × 0 and 50 ms model latency) and the issue-4 single-agent run. */
export async function runStepsBench(
  options: { threads?: number; simSteps?: number; singleAgentSteps?: number } = {},
): Promise<StepsFigures[]> {
  const threads = options.threads ?? 8;
  const simSteps = options.simSteps ?? 20;
  const scenarios: Scenario[] = [];
  for (const simLatencyMs of [0, 50]) {
    for (const workers of [1, 2]) {
      scenarios.push({
        label: `${threads} agents, ${workers} worker(s), ${simLatencyMs} ms model`,
        workers,
        simLatencyMs,
        threads,
        simSteps,
        maxInputTokens: 16_000,
      });
    }
  }
  scenarios.push({
    label: "issue 4: 1 agent, 1 worker, 0 ms model, 16k window",
    workers: 1,
    simLatencyMs: 0,
    threads: 1,
    simSteps: options.singleAgentSteps ?? 120,
    maxInputTokens: 16_000,
  });
  const figures: StepsFigures[] = [];
  for (const scenario of scenarios) figures.push(await runScenario(scenario));
  const optionalMs = (value: number | null) => (value === null ? "-" : value.toFixed(2));
  console.log(
    renderTable(
      [
        "scenario",
        "steps",
        "s",
        "steps/s",
        "outside model p50 ms",
        "p90 ms",
        "compactions",
        "compactions/100 steps",
      ],
      figures.map((row) => [
        row.label,
        String(row.steps),
        row.seconds.toFixed(2),
        row.stepsPerSecond.toFixed(1),
        optionalMs(row.outsideModelMedianMs),
        optionalMs(row.outsideModelP90Ms),
        String(row.compactions),
        row.compactionsPer100Steps.toFixed(1),
      ]),
    ),
  );
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(
    RESULTS,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), workersInProcess: true, agentConcurrency: AGENT_CONCURRENCY, figures }, null, 2)}\n`,
  );
  return figures;
}
