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
// used from the first publish to the last delivery. Ratios within one run are the figures that count.

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHILDREN = fileURLToPath(new URL("./ws-fanout/", import.meta.url));

export interface FanoutOptions {
  subscribers: number;
  clientProcesses: number;
  /** Alternating rounds per contender; the median round is reported. */
  rounds: number;
  /** Events of the saturated burst (published back to back, yielding to I/O between events). */
  burstEvents: number;
  /** Events published at `pacedRate` per second, for latency below saturation. */
  pacedEvents: number;
  pacedRate: number;
  /** Where the JSON results go (an ignored folder). */
  resultsDir: string;
}

type ContenderName = "raw" | "gateway";

export interface RoundFigures {
  contender: ContenderName;
  round: number;
  burstFrames: number;
  burstSeconds: number;
  framesPerSecond: number;
  /** Server process CPU (user + system) from the first publish to the last delivery. */
  serverCpuMs: number;
  cpuMicrosPerFrame: number;
  burstP50Ms: number;
  burstP99Ms: number;
  pacedP50Ms: number;
  pacedP99Ms: number;
}

/** A child process speaking the bench's IPC messages. */
interface Child<In, Out> {
  process: ChildProcess;
  send(message: In): void;
  next<T extends Out>(match: (message: Out) => message is T): Promise<T>;
}

function spawnChild<In, Out extends { type: string }>(file: string, args: string[]): Child<In, Out> {
  const child = fork(join(CHILDREN, file), args, {
    cwd: REPO_ROOT,
    execArgv: ["--import", "tsx"],
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

async function runRound(
  contender: ContenderName,
  round: number,
  options: FanoutOptions,
): Promise<RoundFigures> {
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

    const phase = async (firstSeq: number, count: number, rate: number) => {
      const last = firstSeq + count - 1;
      const reached = clients.map((client) => client.next(is("reached")));
      for (const client of clients) client.send({ type: "expect", seq: last });
      const started = performance.now();
      server.send({ type: "publish", firstSeq, count, rate });
      const results = await Promise.all(reached);
      const seconds = (performance.now() - started) / 1000;
      server.send({ type: "cpu" });
      const cpu = await server.next(is("cpu"));
      await server.next(is("published"));
      const collected = clients.map((client) => client.next(is("latencies")));
      for (const client of clients) client.send({ type: "collect" });
      const latencies = (await Promise.all(collected)).flatMap((message) => message.values);
      return { seconds, cpuMs: cpu.userMs + cpu.systemMs, results, latencies };
    };

    // Warm-up: JIT-compiled paths and grown socket buffers for both contenders.
    await phase(1, 50, 0);
    const burst = await phase(51, options.burstEvents, 0);
    const paced = await phase(51 + options.burstEvents, options.pacedEvents, options.pacedRate);
    const burstFrames = options.subscribers * options.burstEvents;
    return {
      contender,
      round,
      burstFrames,
      burstSeconds: burst.seconds,
      framesPerSecond: burstFrames / burst.seconds,
      serverCpuMs: burst.cpuMs,
      cpuMicrosPerFrame: (burst.cpuMs * 1000) / burstFrames,
      burstP50Ms: quantile(burst.latencies, 0.5),
      burstP99Ms: quantile(burst.latencies, 0.99),
      pacedP50Ms: quantile(paced.latencies, 0.5),
      pacedP99Ms: quantile(paced.latencies, 0.99),
    };
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

function median(rows: RoundFigures[], pick: (row: RoundFigures) => number): number {
  return quantile(rows.map(pick), 0.5);
}

/** Runs the fan-out bench and prints per-round figures, the median ratios and the load during the run. */
export async function runWsFanoutBench(options: FanoutOptions): Promise<RoundFigures[]> {
  const load: number[] = [];
  const sampler = setInterval(() => load.push(loadavg()[0] ?? Number.NaN), 1_000);
  const loadBefore = loadavg();
  const rows: RoundFigures[] = [];
  try {
    for (let round = 1; round <= options.rounds; round += 1) {
      // Alternate which contender goes first so neither always meets a warmer or busier machine.
      const order: ContenderName[] = round % 2 === 1 ? ["raw", "gateway"] : ["gateway", "raw"];
      for (const contender of order) rows.push(await runRound(contender, round, options));
    }
  } finally {
    clearInterval(sampler);
  }
  const ms = (value: number) => value.toFixed(2);
  console.log(
    renderTable(
      [
        "contender",
        "round",
        "frames",
        "s",
        "frames/s",
        "server CPU ms",
        "CPU µs/frame",
        "burst p50/p99 ms",
        `paced ${options.pacedRate}/s p50/p99 ms`,
      ],
      rows.map((row) => [
        row.contender,
        String(row.round),
        String(row.burstFrames),
        row.burstSeconds.toFixed(2),
        row.framesPerSecond.toFixed(0),
        row.serverCpuMs.toFixed(0),
        row.cpuMicrosPerFrame.toFixed(2),
        `${ms(row.burstP50Ms)} / ${ms(row.burstP99Ms)}`,
        `${ms(row.pacedP50Ms)} / ${ms(row.pacedP99Ms)}`,
      ]),
    ),
  );
  const raw = rows.filter((row) => row.contender === "raw");
  const gateway = rows.filter((row) => row.contender === "gateway");
  const ratios = {
    framesPerSecond:
      median(gateway, (row) => row.framesPerSecond) / median(raw, (row) => row.framesPerSecond),
    serverCpuPerFrame:
      median(gateway, (row) => row.cpuMicrosPerFrame) / median(raw, (row) => row.cpuMicrosPerFrame),
    pacedP50: median(gateway, (row) => row.pacedP50Ms) / median(raw, (row) => row.pacedP50Ms),
  };
  const loadDuring = {
    before: loadBefore[0],
    min: Math.min(...load),
    mean: load.reduce((sum, value) => sum + value, 0) / Math.max(1, load.length),
    max: Math.max(...load),
  };
  console.log(
    `gateway / raw ws (medians of ${options.rounds} rounds, ${options.subscribers} subscribers in ` +
      `${options.clientProcesses} processes): frames/s ${ratios.framesPerSecond.toFixed(2)}×, ` +
      `server CPU per frame ${ratios.serverCpuPerFrame.toFixed(2)}×, paced p50 latency ${ratios.pacedP50.toFixed(2)}×`,
  );
  console.log(
    `load average (1 min) during the run: mean ${loadDuring.mean.toFixed(2)}, min ${loadDuring.min.toFixed(2)}, ` +
      `max ${loadDuring.max.toFixed(2)} (before: ${loadBefore[0]?.toFixed(2)})`,
  );
  const file = join(options.resultsDir, "ws-fanout.json");
  await mkdir(dirname(file), { recursive: true });
  await writeFile(
    file,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), options, rows, ratios, loadDuring }, null, 2)}\n`,
  );
  console.log(`results: ${file}`);
  return rows;
}
