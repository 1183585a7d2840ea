import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startFaultCluster } from "../faults/support/cluster.ts";
import { renderTable } from "./stats.ts";

// Steps/s of N agents on 1 versus 2 `longrun worker` processes (separate OS processes, each with the
// same concurrency), 50 ms model latency, one `longrun serve`, the sim model in this process. The
// ratio is what issue 13 asks about; the absolute figures depend on this machine's load.

const RESULTS = fileURLToPath(new URL("./results/worker-scaling.json", import.meta.url));

interface Scaling {
  agents: number;
  workers: number;
  steps: number;
  seconds: number;
  stepsPerSecond: number;
  load: number;
}

async function measure(agents: number, workers: number, simSteps: number): Promise<Scaling> {
  const cluster = await startFaultCluster({
    workers,
    workerConcurrency: 8,
    sim: { delayMs: 50 },
    // Recovery timings are not what this measures; keep the defaults' cadence.
    env: { LONGRUN_RECONCILE_MS: "15000" },
  });
  try {
    const client = cluster.client();
    const load = loadavg()[0] ?? 0;
    const started = performance.now();
    const threads = await Promise.all(
      Array.from({ length: agents }, (_, index) =>
        client.threads.create({
          model: "sim",
          simSteps,
          maxInputTokens: 32_000,
          task: `Survey part ${index}.`,
        }),
      ),
    );
    // Polls the API (a bench, not a test: no vitest here) until every run ended.
    for (;;) {
      const details = await Promise.all(threads.map((thread) => client.threads.get(thread.id)));
      if (details.every((detail) => detail.runs.every((run) => run.finishedAt !== null))) break;
      if (performance.now() - started > 600_000) throw new Error("runs did not finish in 10 minutes");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const seconds = (performance.now() - started) / 1000;
    const steps = cluster.sim.log.entries.filter((entry) => !entry.summary).length;
    return { agents, workers, steps, seconds, stepsPerSecond: steps / seconds, load };
  } finally {
    await cluster.close();
  }
}

/** 1 vs 2 worker processes at 16 and 32 agents, 50 ms model. */
export async function runWorkerScalingBench(options: { simSteps?: number; agentCounts?: number[] } = {}) {
  const rows: Scaling[] = [];
  for (const agents of options.agentCounts ?? [16, 32]) {
    const one = await measure(agents, 1, options.simSteps ?? 20);
    const two = await measure(agents, 2, options.simSteps ?? 20);
    rows.push(one, two);
  }
  console.log(
    renderTable(
      ["agents", "worker processes", "steps", "s", "steps/s", "2 ÷ 1", "load avg"],
      rows.map((row, index) => {
        const single = row.workers === 2 ? rows[index - 1] : undefined;
        return [
          String(row.agents),
          String(row.workers),
          String(row.steps),
          row.seconds.toFixed(1),
          row.stepsPerSecond.toFixed(1),
          single ? `${(row.stepsPerSecond / single.stepsPerSecond).toFixed(2)}×` : "",
          row.load.toFixed(1),
        ];
      }),
    ),
  );
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify({ measuredAt: new Date().toISOString(), rows }, null, 2)}\n`);
}
