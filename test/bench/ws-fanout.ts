import { type ChildProcess, fork } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { quantile, renderTable } from "./stats.ts";
import type { FromClients, FromServer, ToClients, ToServer } from "./ws-fanout/messages.ts";

// WebSocket fan-out at saturation: the longrun gateway against a raw `ws` broadcast of the same frames.
// Every contender runs in its own server process; the subscribers live in separate client processes;
// rounds alternate raw / gateway so both see the same load on this shared two-core box. Throughput is
// frames delivered to every subscriber per second of wall time; server CPU is what the server process
// used from the first publish to the last delivery; its inverse, frames per server CPU-second, is the
// saturation throughput the server would reach with a core to itself. On a shared box the server rarely
// has one (other processes take turns), so wall-time frames/s swings with the load from round to round
// while CPU per frame does not. Ratios within one run are the figures that count.

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHILDREN = fileURLToPath(new URL("./ws-fanout/", import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

export interface FanoutOptions {
  subscribers: number;
  clientProcesses: number;
  /** Alternating rounds per contender; medians and best rounds are reported. */
  rounds: number;
  /** Events of each saturated burst (published back to back, yielding to I/O between turns). */
  burstEvents: number;
  /** Events that arrive per I/O turn in the second burst, as a backlog read off a bus would. */
  burstPerTurn: number;
  /** Events published at `pacedRate` per second, for latency below saturation. */
  pacedEvents: number;
  pacedRate: number;
  /** Where the JSON results go; default `test/bench/results/`, which git ignores. */
  resultsDir?: string;
}

type ContenderName = "raw" | "gateway";

/** One measured phase of one round of one contender. */
export interface PhaseFigures {
  contender: ContenderName;
  round: number;
  phase: string;
  frames: number;
  seconds: number;
  framesPerSecond: number;
  /** Server process CPU (user + system) from the first publish to the last delivery. */
  serverCpuMs: number;
  /** The kernel's part of it (socket writes are system time). */
  serverSystemMs: number;
  cpuMicrosPerFrame: number;
  /** CPU of all client processes over the same interval. */
  clientCpuMs: number;
  p50Ms: number;
  p99Ms: number;
}

/** A child process speaking the bench's IPC messages. */
interface Child<In, Out> {
  process: ChildProcess;
  send(message: In): void;
  next<T extends Out>(match: (message: Out) => message is T): Promise<T>;
}

/** Set to a folder to get a V8 CPU profile of every server process (for finding where the time goes). */
const PROFILE_DIR = process.env.LONGRUN_BENCH_CPU_PROF_DIR;

function spawnChild<In, Out extends { type: string }>(file: string, args: string[]): Child<In, Out> {
  const profile =
    PROFILE_DIR && file.startsWith("server") ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : [];
  const child = fork(join(CHILDREN, file), args, {
    cwd: REPO_ROOT,
    execArgv: ["--import", "tsx", ...profile],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const inbox: Out[] = [];
  const waiters: { match: (message: Out) => boolean; resolve(message: Out): void }[] = [];
  let failure: Error | null = null;
  const fail = (error: Error) => {
    failure = error;
    for (const waiter of waiters.splice(0)) waiter.resolve(Promise.reject(error) as never);
  };
  child.on("message", (message: Out) => {
    if (message.type === "failed") return fail(new Error(`${file}: ${JSON.stringify(message)}`));
    const index = waiters.findIndex((waiter) => waiter.match(message));
    if (index < 0) inbox.push(message);
    else waiters.splice(index, 1)[0]?.resolve(message);
  });
  child.on("exit", (code) => {
    if (waiters.length > 0) fail(new Error(`${file} exited with ${code}`));
  });
  return {
    process: child,
    send: (message) => child.send(message as object),
    next: <T extends Out>(match: (message: Out) => message is T) => {
      if (failure) return Promise.reject(failure);
      const index = inbox.findIndex(match);
      if (index >= 0) return Promise.resolve(inbox.splice(index, 1)[0] as T);
      return new Promise<T>((resolve) => waiters.push({ match, resolve: resolve as (message: Out) => void }));
    },
  };
}

const is =
  <Type extends string>(type: Type) =>
  <M extends { type: string }>(message: M): message is Extract<M, { type: Type }> =>
    message.type === type;

const BURST = "burst, 1/turn";

async function runRound(
  contender: ContenderName,
  round: number,
  options: FanoutOptions,
): Promise<PhaseFigures[]> {
  const server = spawnChild<ToServer, FromServer>("server-process.ts", [contender]);
  const clients: Child<ToClients, FromClients>[] = [];
  try {
    const { url } = await server.next(is("listening"));
    const perProcess = Math.ceil(options.subscribers / options.clientProcesses);
    for (let index = 0; index < options.clientProcesses; index += 1) {
      const count = Math.min(perProcess, options.subscribers - index * perProcess);
      clients.push(spawnChild<ToClients, FromClients>("client-process.ts", [url, String(count), contender]));
    }
    await Promise.all(clients.map((client) => client.next(is("connected"))));

    let nextSeq = 1;
    const phase = async (name: string, count: number, rate: number, perTurn: number) => {
      const firstSeq = nextSeq;
      nextSeq += count;
      const reached = clients.map((client) => client.next(is("reached")));
      for (const client of clients) client.send({ type: "expect", seq: firstSeq + count - 1 });
      const started = performance.now();
      server.send({ type: "publish", firstSeq, count, rate, perTurn });
      const results = await Promise.all(reached);
      const seconds = (performance.now() - started) / 1000;
      server.send({ type: "cpu" });
      const cpu = await server.next(is("cpu"));
      await server.next(is("published"));
      const collected = clients.map((client) => client.next(is("latencies")));
      for (const client of clients) client.send({ type: "collect" });
      const latencies = (await Promise.all(collected)).flatMap((message) => message.values);
      const frames = options.subscribers * count;
      const serverCpuMs = cpu.userMs + cpu.systemMs;
      return {
        contender,
        round,
        phase: name,
        frames,
        seconds,
        framesPerSecond: frames / seconds,
        serverCpuMs,
        serverSystemMs: cpu.systemMs,
        cpuMicrosPerFrame: (serverCpuMs * 1000) / frames,
        clientCpuMs: results.reduce((sum, message) => sum + message.cpuMs, 0),
        p50Ms: quantile(latencies, 0.5),
        p99Ms: quantile(latencies, 0.99),
      } satisfies PhaseFigures;
    };

    // Warm-up: JIT-compiled paths and grown socket buffers for both contenders.
    await phase("warm-up", 50, 0, 1);
    return [
      await phase(BURST, options.burstEvents, 0, 1),
      await phase(`burst, ${options.burstPerTurn}/turn`, options.burstEvents, 0, options.burstPerTurn),
      await phase(`paced ${options.pacedRate}/s`, options.pacedEvents, options.pacedRate, 1),
    ];
  } finally {
    for (const child of [server, ...clients]) {
      if (child.process.connected) child.send({ type: "exit" } as never);
    }
    await Promise.all(
      [server, ...clients].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.process.exitCode !== null) return resolve();
            child.process.once("exit", () => resolve());
            setTimeout(() => child.process.kill("SIGKILL"), 5_000).unref();
          }),
      ),
    );
  }
}

function median(rows: PhaseFigures[], pick: (row: PhaseFigures) => number): number {
  return quantile(rows.map(pick), 0.5);
}

/** gateway ÷ raw for one phase: medians, and best rounds (interference only ever adds time, so the best
 * round of each contender is the steadiest estimate of its own cost on a shared machine). */
function compare(rows: PhaseFigures[], phase: string) {
  const of = (contender: ContenderName) =>
    rows.filter((row) => row.contender === contender && row.phase === phase);
  const raw = of("raw");
  const gateway = of("gateway");
  const ratio = (pick: (row: PhaseFigures) => number) => median(gateway, pick) / median(raw, pick);
  return {
    phase,
    framesPerSecond: ratio((row) => row.framesPerSecond),
    serverCpuPerFrame: ratio((row) => row.cpuMicrosPerFrame),
    framesPerServerCpuSecond: ratio((row) => 1 / row.cpuMicrosPerFrame),
    p50Latency: ratio((row) => row.p50Ms),
    bestFramesPerSecond:
      Math.max(...gateway.map((row) => row.framesPerSecond)) /
      Math.max(...raw.map((row) => row.framesPerSecond)),
    bestServerCpuPerFrame:
      Math.min(...gateway.map((row) => row.cpuMicrosPerFrame)) /
      Math.min(...raw.map((row) => row.cpuMicrosPerFrame)),
  };
}

/** Runs the fan-out bench and prints per-round figures, the ratios and the load during the run. */
export async function runWsFanoutBench(options: FanoutOptions): Promise<PhaseFigures[]> {
  const load: number[] = [];
  const sampler = setInterval(() => load.push(loadavg()[0] ?? Number.NaN), 1_000);
  const loadBefore = loadavg();
  const rows: PhaseFigures[] = [];
  try {
    for (let round = 1; round <= options.rounds; round += 1) {
      // Alternate which contender goes first so neither always meets a warmer or busier machine.
      const order: ContenderName[] = round % 2 === 1 ? ["raw", "gateway"] : ["gateway", "raw"];
      for (const contender of order) rows.push(...(await runRound(contender, round, options)));
    }
  } finally {
    clearInterval(sampler);
  }
  const ms = (value: number) => value.toFixed(2);
  const sorted = [...rows].sort(
    (a, b) => a.phase.localeCompare(b.phase) || a.contender.localeCompare(b.contender) || a.round - b.round,
  );
  console.log(
    renderTable(
      [
        "phase",
        "contender",
        "round",
        "frames",
        "s",
        "frames/s",
        "server CPU (system) ms",
        "CPU µs/frame",
        "client CPU ms",
        "p50 / p99 ms",
      ],
      sorted.map((row) => [
        row.phase,
        row.contender,
        String(row.round),
        String(row.frames),
        row.seconds.toFixed(2),
        row.framesPerSecond.toFixed(0),
        `${row.serverCpuMs.toFixed(0)} (${row.serverSystemMs.toFixed(0)})`,
        row.cpuMicrosPerFrame.toFixed(2),
        row.clientCpuMs.toFixed(0),
        `${ms(row.p50Ms)} / ${ms(row.p99Ms)}`,
      ]),
    ),
  );
  const phases = [...new Set(rows.map((row) => row.phase))];
  const ratios = phases.map((phase) => compare(rows, phase));
  console.log(
    `\ngateway ÷ raw ws, ${options.subscribers} subscribers in ${options.clientProcesses} processes, ` +
      `medians of ${options.rounds} rounds (best rounds):`,
  );
  console.log(
    renderTable(
      ["phase", "frames/s (wall)", "server CPU per frame", "frames per server CPU-s", "p50 latency"],
      ratios.map((ratio) => [
        ratio.phase,
        `${ratio.framesPerSecond.toFixed(2)}× (${ratio.bestFramesPerSecond.toFixed(2)}×)`,
        `${ratio.serverCpuPerFrame.toFixed(2)}× (${ratio.bestServerCpuPerFrame.toFixed(2)}×)`,
        `${ratio.framesPerServerCpuSecond.toFixed(2)}× (${(1 / ratio.bestServerCpuPerFrame).toFixed(2)}×)`,
        `${ratio.p50Latency.toFixed(2)}×`,
      ]),
    ),
  );
  const loadDuring = {
    before: loadBefore[0],
    min: Math.min(...load),
    mean: load.reduce((sum, value) => sum + value, 0) / Math.max(1, load.length),
    max: Math.max(...load),
  };
  console.log(
    `load average (1 min) during the run: mean ${loadDuring.mean.toFixed(2)}, min ${loadDuring.min.toFixed(2)}, ` +
      `max ${loadDuring.max.toFixed(2)} (before: ${loadBefore[0]?.toFixed(2)})`,
  );
  const file = join(options.resultsDir ?? RESULTS_DIR, "ws-fanout.json");
  await mkdir(dirname(file), { recursive: true });
  await writeFile(
    file,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), options, rows, ratios, loadDuring }, null, 2)}\n`,
  );
  console.log(`results: ${file}`);
  return rows;
}
