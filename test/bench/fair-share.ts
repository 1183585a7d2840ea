import { fork } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { tenantRequest } from "./fair-share/tenant-request.ts";
import { quantile, renderTable } from "./stats.ts";

// Tenant A's latencies idle, then while tenant B floods (20 parallel clients creating threads with
// runs, 200 attempts, then listing threads until A is done) from a process of its own, against one
// embedded server with the default limits. The figure is the ratio of A's p50 under the flood to A's idle p50 in the same run; the
// absolute figures depend on this machine's load.

const RESULTS = fileURLToPath(new URL("./results/fair-share.json", import.meta.url));
const A_RUNS = 5;
const A_REQUESTS = 20;

interface Samples {
  run: number[];
  create: number[];
  list: number[];
}

async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await action();
  return [result, performance.now() - started];
}

/** A's sequential runs (admission to completion), thread creations and thread lists. */
async function measureA(instance: EmbeddedInstance): Promise<Samples> {
  const samples: Samples = { run: [], create: [], list: [] };
  const token = instance.token;
  for (let index = 0; index < A_RUNS; index += 1) {
    const started = performance.now();
    const created = await tenantRequest(instance.url, token, "POST", "/v1/threads", {
      model: "sim",
      simSteps: 3,
      task: "Survey the workspace.",
    });
    if (created.status !== 201) throw new Error(`A's run was refused: ${created.status}`);
    for (;;) {
      const thread = await tenantRequest(instance.url, token, "GET", `/v1/threads/${created.json.id}`);
      if (thread.json.runs?.[0]?.status === "completed") break;
      if (performance.now() - started > 120_000) throw new Error("A's run did not finish in 2 minutes");
      // 10 polls a second: a client well within its tenant's request rate.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    samples.run.push(performance.now() - started);
  }
  for (let index = 0; index < A_REQUESTS; index += 1) {
    const [created, ms] = await timed(() =>
      tenantRequest(instance.url, token, "POST", "/v1/threads", { model: "sim" }),
    );
    if (created.status !== 201) throw new Error(`A's create was refused: ${created.status}`);
    samples.create.push(ms);
    samples.list.push(
      (await timed(() => tenantRequest(instance.url, token, "GET", "/v1/threads?limit=50")))[1],
    );
  }
  return samples;
}

/**
 * This process's CPU since `from` (user + system) and as a share of one core over the wall time: on a
 * shared machine the server's own work per phase, which the wall-clock ratios cannot separate from others'.
 */
function usage(from?: { cpu: NodeJS.CpuUsage; at: number }) {
  const now = { cpu: process.cpuUsage(), at: performance.now() };
  if (!from) return { ...now, seconds: 0, wallSeconds: 0, share: 0 };
  const cpu = process.cpuUsage(from.cpu);
  const seconds = (cpu.user + cpu.system) / 1e6;
  const wallSeconds = (now.at - from.at) / 1000;
  return { ...now, seconds, wallSeconds, share: (100 * seconds) / wallSeconds };
}

/** A phase's event-loop delay in ms (the histogram counts nanoseconds). */
function delayOf(histogram: ReturnType<typeof monitorEventLoopDelay>) {
  const ms = (nanoseconds: number) => Number((nanoseconds / 1e6).toFixed(1));
  return { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
}

/** `npm run bench -- fair-share`: A's p50 idle and while B floods, as a ratio. */
export async function runFairShareBench(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-fair-"));
  const config = loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir });
  const instance = await startEmbedded(config);
  try {
    const store = await openLog(config);
    const bobToken = (await store.apiKeys.create("B")).token;
    await store.close();

    const load = { idle: loadavg()[0] ?? 0, flood: 0 };
    // The event loop's delay in each phase: A's requests and steps wait in it behind B's work.
    const loopDelay = monitorEventLoopDelay({ resolution: 5 });
    loopDelay.enable();
    const idleStart = usage();
    const idle = await measureA(instance);
    const idleCpu = usage(idleStart);
    const idleLoop = delayOf(loopDelay);
    loopDelay.reset();

    // B floods from its own process: its clients' work is not the server's.
    const flood = fork(
      fileURLToPath(new URL("./fair-share/flood-process.ts", import.meta.url)),
      [instance.url, bobToken],
      {
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      },
    );
    const exited = new Promise<never>((_, reject) =>
      flood.once("exit", (code) => reject(new Error(`B's flood process exited early (${code})`))),
    );
    const reply = (type: string) =>
      Promise.race([
        new Promise<{ answers?: Record<string, number> }>((resolve) =>
          flood.on("message", (message: { type: string; answers?: Record<string, number> }) => {
            if (message.type === type) resolve(message);
          }),
        ),
        exited,
      ]);
    const done = reply("done");
    await reply("started");
    const floodStart = usage();
    // B's reads are bounded: its process may be done (and gone) before A is.
    const underFlood = await measureA(instance).finally(() => flood.connected && flood.send("stop"));
    const floodCpu = usage(floodStart);
    const floodLoop = delayOf(loopDelay);
    loopDelay.disable();
    load.flood = loadavg()[0] ?? 0;
    const answers = new Map(Object.entries((await done).answers ?? {}));

    const rows = (["run", "create", "list"] as const).map((kind) => {
      const idleP50 = quantile(idle[kind], 0.5);
      const floodP50 = quantile(underFlood[kind], 0.5);
      return [kind, idleP50.toFixed(1), floodP50.toFixed(1), `${(floodP50 / idleP50).toFixed(2)}×`];
    });
    console.log(renderTable(["A's", "idle p50 ms", "B flooding p50 ms", "ratio"], rows));
    // In order: the first ones meet B's start (its creations, its 32 runs' first steps), the p50 may too.
    console.log(
      `A's runs while B floods, in order: ${underFlood.run.map((ms) => ms.toFixed(0)).join(", ")} ms (idle: ${idle.run.map((ms) => ms.toFixed(0)).join(", ")})`,
    );
    console.log(
      `event loop delay (p50 / p99 / max ms): idle ${idleLoop.p50} / ${idleLoop.p99} / ${idleLoop.max}, while B floods ${floodLoop.p50} / ${floodLoop.p99} / ${floodLoop.max}`,
    );
    console.log(`B's answers: ${[...answers].map(([key, value]) => `${key}: ${value}`).join(", ")}`);
    const bAnswered = [...answers.values()].reduce((sum, count) => sum + count, 0);
    console.log(
      `this process's CPU (server and A's client): ${idleCpu.share.toFixed(0)}% of a core idle, ${floodCpu.share.toFixed(0)}% while B floods (${floodCpu.seconds.toFixed(1)} s of CPU in ${floodCpu.wallSeconds.toFixed(1)} s; B answered ${(bAnswered / floodCpu.wallSeconds).toFixed(0)} times a second, ${((floodCpu.seconds * 1e6) / Math.max(1, bAnswered)).toFixed(0)} µs per answer to B, B's runs' steps included)`,
    );
    // Other work on the machine stretches both phases, not always alike: read the ratios beside it.
    console.log(
      `1-minute load average: ${load.idle.toFixed(1)} before the idle phase, ${load.flood.toFixed(1)} after the flood (${cpus().length} CPUs)`,
    );
    await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
    await writeFile(
      RESULTS,
      `${JSON.stringify({ measuredAt: new Date().toISOString(), load, cpu: { idle: idleCpu, flood: floodCpu }, loopDelayMs: { idle: idleLoop, flood: floodLoop }, idle, underFlood, bAnswers: Object.fromEntries(answers) }, null, 2)}\n`,
    );
  } finally {
    await instance.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
