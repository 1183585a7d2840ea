import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { buildRuntime, loadConfig, startProcessWorker } from "@longrun/cli";
import { ModelProfile } from "@longrun/protocol";
import { createBullmqQueue, createInProcessQueue, type JobQueue } from "@longrun/queue";
import { createThreadWithRoot } from "@longrun/runtime";
import { simModelName, startSimModel } from "@longrun/sim-model";
import { createTempWorkspace, createTestRedis } from "@longrun/testing";
import { embeddedInfra, type ModelCall, stepTimes, timedModel } from "./bench-infra.ts";
import { quantile, renderTable } from "./stats.ts";

// Issue 13's per-step rows, each beside its baseline in the same run: the time a step spends outside
// the model call in embedded mode (0 ms sim model) against a raw queue link (a job that enqueues the
// next, nothing else) on BullMQ and on the in-process queue; and the transactions and SQL statements
// per step, counted here by wrapping the native libSQL statements (production code counts nothing).

const RESULTS = fileURLToPath(new URL("./results/lean-step.json", import.meta.url));

/** Counts every SQL statement the process executes through the native libSQL binding. */
function countStatements(): {
  statements: number;
  transactions: number;
  bySql: Map<string, number>;
  reset(): void;
} {
  const require = createRequire(import.meta.url);
  // The native binding both @libsql/client and the store's prepared statements run on.
  const Database = require(require.resolve("libsql", { paths: [require.resolve("@longrun/store")] })) as {
    prototype: { prepare(sql: string): object };
    new (path: string): { prepare(sql: string): object; close(): void };
  };
  const counter = { statements: 0, transactions: 0, bySql: new Map<string, number>(), reset() {} };
  const probe = new Database(":memory:");
  const statementPrototype = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, unknown>;
  probe.close();
  const sqlOf = new WeakMap<object, string>();
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (this: unknown, sql: string) {
    const statement = prepare.call(this, sql);
    sqlOf.set(statement, sql);
    return statement;
  };
  // libsql's all() runs through iterate(): count the outer call only.
  let depth = 0;
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = statementPrototype[method] as (...args: unknown[]) => unknown;
    statementPrototype[method] = function (this: object, ...args: unknown[]) {
      if (depth > 0) return original.apply(this, args);
      depth += 1;
      try {
        return original.apply(this, args);
      } finally {
        depth -= 1;
      }
    };
    const counted = statementPrototype[method] as (...args: unknown[]) => unknown;
    statementPrototype[method] = function (this: object, ...args: unknown[]) {
      if (depth > 0) return counted.apply(this, args);
      counter.statements += 1;
      const sql = sqlOf.get(this) ?? "";
      if (/^\s*BEGIN/i.test(sql)) counter.transactions += 1;
      const key = sql.replace(/\s+/g, " ").slice(0, 90);
      counter.bySql.set(key, (counter.bySql.get(key) ?? 0) + 1);
      return counted.apply(this, args);
    };
  }
  counter.reset = () => {
    counter.statements = 0;
    counter.transactions = 0;
    counter.bySql.clear();
  };
  return counter;
}

/** A chain of `links` jobs, each enqueuing the next; median ms per link. */
async function queueLink(queue: JobQueue, links: number): Promise<number> {
  const times: number[] = [];
  let last = performance.now();
  const done = new Promise<void>((resolve) => {
    void queue.process(
      {
        "agent.step": async (payload) => {
          const now = performance.now();
          times.push(now - last);
          last = now;
          const next = (payload.expectSeq ?? 0) + 1;
          if (next >= links) resolve();
          else await queue.enqueue("agent.step", { ...payload, expectSeq: next });
        },
      },
      { concurrency: 1 },
    );
  });
  last = performance.now();
  await queue.enqueue("agent.step", { threadId: "t", agentId: "a", runId: "r", expectSeq: 0 });
  await done;
  return quantile(times.slice(10), 0.5);
}

interface StepFigures {
  steps: number;
  outsideModelP50Ms: number;
  outsideModelP90Ms: number;
  transactionsPerStep: number;
  statementsPerStep: number;
  cpuMsPerStep: number;
}

/** One agent in embedded mode (in-process queue, libSQL file, 0 ms sim model) for `simSteps` steps. */
async function embeddedSteps(
  simSteps: number,
  counter: ReturnType<typeof countStatements>,
): Promise<StepFigures> {
  const sim = await startSimModel({ port: 0, logBodies: false });
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-lean-"));
  const workspace = await createTempWorkspace();
  const calls: ModelCall[] = [];
  const config = loadConfig({ LONGRUN_DATA_DIR: dataDir, LONGRUN_TIME_ZONE: "UTC" });
  const infra = await embeddedInfra(config, timedModel(sim.baseURL, calls));
  const runtime = buildRuntime(infra, config);
  // As embedded mode starts it: 4 agent steps (the default concurrency), 2 compactions.
  const worker = await startProcessWorker(infra, runtime, config);
  const outcomes = new Map<string, number>();
  infra.queue.onJobEvent((event) => {
    if (event.type !== "completed") return;
    const key = `${event.name} ${JSON.stringify(event.result)}`;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  });
  try {
    const { thread } = await createThreadWithRoot(runtime.deps, {
      tenantId: "bench",
      title: "lean step",
      workspaceDir: workspace.dir,
      modelProfile: ModelProfile.parse({
        model: simModelName({ steps: simSteps, ctx: 16_000 }),
        maxInputTokens: 16_000,
      }),
    });
    const finished = new Promise<void>((resolve) => {
      void infra.bus.subscribe("events", (message) => {
        const event = message;
        if (event.threadId === thread.id && ["run.completed", "run.failed"].includes(event.type)) resolve();
      });
    });
    counter.reset();
    const cpuBefore = process.cpuUsage();
    await runtime.runControl.admitMessage({ threadId: thread.id, content: "Survey the inventory project." });
    await finished;
    const cpu = process.cpuUsage(cpuBefore);
    if (process.env.LONGRUN_BENCH_SQL) console.log(outcomes);
    const steps = calls.filter((call) => !call.summary).length;
    const gaps = stepTimes(calls).outsideModel;
    return {
      steps,
      outsideModelP50Ms: quantile(gaps, 0.5),
      outsideModelP90Ms: quantile(gaps, 0.9),
      transactionsPerStep: counter.transactions / steps,
      statementsPerStep: counter.statements / steps,
      // The sim model runs in this process too: its share is inside, the same in every run.
      cpuMsPerStep: (cpu.user + cpu.system) / 1000 / steps,
    };
  } finally {
    await worker.close(1_000);
    await infra.bus.close();
    await infra.store.close();
    await sim.close();
    await workspace.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The per-step rows of issue 13 with their baselines, measured in one run. */
export async function runLeanStepBench(options: { simSteps?: number; links?: number } = {}) {
  const counter = countStatements();
  const load = loadavg()[0] ?? 0;
  const redis = await createTestRedis();
  const bullmq = createBullmqQueue({ connection: redis.url, prefix: redis.prefix, onError: () => undefined });
  const bullmqLinkMs = await queueLink(bullmq, options.links ?? 300);
  await bullmq.close({ graceMs: 0 });
  await redis.cleanup();
  const inProcess = createInProcessQueue();
  const inProcessLinkMs = await queueLink(inProcess, options.links ?? 300);
  await inProcess.close({ graceMs: 0 });
  const step = await embeddedSteps(options.simSteps ?? 120, counter);
  const rows = [
    [
      "time per step outside the model call, p50",
      `${step.outsideModelP50Ms.toFixed(2)} ms`,
      `raw BullMQ link ${bullmqLinkMs.toFixed(2)} ms (${(step.outsideModelP50Ms / bullmqLinkMs).toFixed(1)}×)`,
    ],
    [
      "time per step outside the model call, p90",
      `${step.outsideModelP90Ms.toFixed(2)} ms`,
      `in-process link ${inProcessLinkMs.toFixed(3)} ms`,
    ],
    ["transactions per step", step.transactionsPerStep.toFixed(1), "—"],
    ["SQL statements per step (BEGIN/COMMIT included)", step.statementsPerStep.toFixed(1), "—"],
    ["CPU per step (worker + in-process sim)", `${step.cpuMsPerStep.toFixed(2)} ms`, "—"],
  ];
  console.log(
    `${step.steps} steps, 1 agent, embedded, 0 ms sim model, 16k window; load average ${load.toFixed(1)}`,
  );
  console.log(renderTable(["measure", "longrun", "baseline in the same run"], rows));
  if (process.env.LONGRUN_BENCH_SQL) {
    const top = [...counter.bySql].sort((a, b) => b[1] - a[1]).slice(0, 25);
    for (const [sql, count] of top)
      console.log(`${(count / step.steps).toFixed(2).padStart(6)}/step  ${sql}`);
  }
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(
    RESULTS,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), loadAverage: load, bullmqLinkMs, inProcessLinkMs, step }, null, 2)}\n`,
  );
}
