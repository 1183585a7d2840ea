import { fork } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { type OtlpReceiver, startOtlpReceiver } from "../e2e/support/otlp-receiver.ts";
import { DISCARD_SPANS, type FromStepProcess } from "./observability/messages.ts";
import { formatMs, quantile, renderTable } from "./stats.ts";

// Issue 36's last goal: what logging and tracing add to a step. Every configuration runs in its own
// process (test/bench/observability/step-process.ts), because tracing is installed once, at process
// start, from OTEL_EXPORTER_OTLP_ENDPOINT, exactly as `longrun start` does: one agent, embedded mode,
// 0 ms sim model over HTTP, so a step is longrun's work and the sim's answer, and the overhead is as
// large a share of it as it can be. Spans go over OTLP/HTTP to the receiver the traces e2e test uses,
// in this process (one configuration drops them in the process instead, to tell the SDK's cost from
// the export's); log lines go to the child's stdout, a pipe this process drains. Rounds run the
// configurations forward then backward (A B C … C B A …) so load drift on this shared box falls on all
// of them, and every figure is read as a ratio to the baseline (logs silent, tracing off) of the same run.

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHILD = fileURLToPath(new URL("./observability/step-process.ts", import.meta.url));
const RESULTS = fileURLToPath(new URL("./results/observability.json", import.meta.url));

/** First steps of each process left out of the figures: module loading and JIT warm-up. */
const WARM_UP_STEPS = 10;

interface Configuration {
  name: string;
  /** LONGRUN_LOG_LEVEL of the process (`info` is the default). */
  logLevel: "silent" | "info" | "debug";
  /**
   * `otlp`: OTEL_EXPORTER_OTLP_ENDPOINT set to the receiver. `discarded`: the same SDK with an exporter
   * that drops every batch (spans, context and batching without serialization and HTTP), apart.
   */
  tracing: "off" | "otlp" | "discarded";
}

const CONFIGURATIONS: Configuration[] = [
  { name: "baseline: logs silent, tracing off", logLevel: "silent", tracing: "off" },
  { name: "logs info (default)", logLevel: "info", tracing: "off" },
  { name: "logs debug (every event)", logLevel: "debug", tracing: "off" },
  { name: "tracing on, spans discarded", logLevel: "silent", tracing: "discarded" },
  { name: "tracing on (OTLP/HTTP)", logLevel: "silent", tracing: "otlp" },
  { name: "logs info + tracing on (OTLP)", logLevel: "info", tracing: "otlp" },
];

export interface ObservabilityOptions {
  /** Rounds; each runs every configuration once, in its own process. */
  rounds: number;
  /** Steps of the sim agent per process. */
  simSteps: number;
  /** The agent's window (tokens); compactions happen, their steps are left out as in lean-step. */
  window: number;
}

/** One process: one configuration, one round. */
interface ProcessFigures {
  configuration: string;
  round: number;
  /** 1-minute load average when the process started. */
  load: number;
  steps: number;
  summaries: number;
  compactions: number;
  /** After the warm-up steps. */
  intervals: number[];
  outsideModel: number[];
  cpuMsPerStep: number;
  logLinesPerStep: number;
  logBytesPerStep: number;
  spansPerStep: number;
}

/** Runs one configuration in a fresh process; its spans are taken off the receiver. */
async function runProcess(
  configuration: Configuration,
  round: number,
  receiver: OtlpReceiver,
  options: ObservabilityOptions,
): Promise<ProcessFigures> {
  const env: NodeJS.ProcessEnv = { ...process.env, LONGRUN_LOG_LEVEL: configuration.logLevel };
  for (const name of Object.keys(env)) if (name.startsWith("OTEL_")) delete env[name];
  if (configuration.tracing === "otlp") env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  if (configuration.tracing === "discarded") env[DISCARD_SPANS] = "1";
  else delete env[DISCARD_SPANS];
  const load = loadavg()[0] ?? 0;
  const child = fork(CHILD, [String(options.simSteps), String(options.window)], {
    cwd: REPO_ROOT,
    env,
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  let logBytes = 0;
  let logLines = 0;
  child.stdout?.on("data", (chunk: Buffer) => {
    logBytes += chunk.length;
    for (const byte of chunk) if (byte === 0x0a) logLines += 1;
  });
  const message = await new Promise<FromStepProcess>((resolve, reject) => {
    child.once("message", (received: FromStepProcess) => resolve(received));
    child.once("exit", (code) =>
      reject(new Error(`${configuration.name}: step process exited with ${code}`)),
    );
  });
  // Every log line is read once the process is gone.
  if (child.exitCode === null) await new Promise((resolve) => child.once("close", resolve));
  if (message.type === "failed") throw new Error(`${configuration.name}: ${message.message}`);
  if (message.status !== "run.completed") throw new Error(`${configuration.name}: ${message.status}`);
  if (message.tracing !== configuration.tracing || message.logLevel !== configuration.logLevel) {
    throw new Error(
      `${configuration.name}: the process ran with ${message.logLevel}, tracing ${message.tracing}`,
    );
  }
  // Exported to the receiver, or handed to the discarding exporter: spans the process made either way.
  const spans =
    receiver.spans.splice(0).filter((span) => span.instance === `start-${child.pid}`).length +
    message.discardedSpans;
  return {
    configuration: configuration.name,
    round,
    load,
    steps: message.steps,
    summaries: message.summaries,
    compactions: message.compactions,
    intervals: message.intervals.slice(WARM_UP_STEPS),
    outsideModel: message.outsideModel.slice(WARM_UP_STEPS),
    cpuMsPerStep: message.cpuMs / message.steps,
    logLinesPerStep: logLines / message.steps,
    logBytesPerStep: logBytes / message.steps,
    spansPerStep: spans / message.steps,
  };
}

const ratio = (value: number, base: number) => `${(value / base).toFixed(2)}×`;

/** The lowest and highest of the per-round ratios, in brackets: how far one round can be from another. */
function roundRange(values: number[]): string {
  return `(${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;
}

/** Every configuration, `rounds` times, alternating order; a table of ratios to the baseline. */
export async function runObservabilityBench(options: ObservabilityOptions): Promise<void> {
  const receiver = await startOtlpReceiver();
  const processes: ProcessFigures[] = [];
  try {
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? CONFIGURATIONS : [...CONFIGURATIONS].reverse();
      for (const configuration of order) {
        processes.push(await runProcess(configuration, round, receiver, options));
      }
    }
  } finally {
    await receiver.close();
  }

  const of = (configuration: Configuration) =>
    processes.filter((figures) => figures.configuration === configuration.name);
  const pooled = (configuration: Configuration, pick: (figures: ProcessFigures) => number[]) =>
    of(configuration).flatMap(pick);
  const mean = (configuration: Configuration, pick: (figures: ProcessFigures) => number) => {
    const rows = of(configuration);
    return rows.reduce((sum, figures) => sum + pick(figures), 0) / rows.length;
  };
  const baseline = CONFIGURATIONS[0] as Configuration;
  const baseOf = (round: number) =>
    processes.find((figures) => figures.configuration === baseline.name && figures.round === round);
  const summary = CONFIGURATIONS.map((configuration) => {
    const intervals = pooled(configuration, (figures) => figures.intervals);
    const outsideModel = pooled(configuration, (figures) => figures.outsideModel);
    const perRound = of(configuration).map((figures) => {
      const base = baseOf(figures.round) as ProcessFigures;
      return {
        p50: quantile(figures.intervals, 0.5) / quantile(base.intervals, 0.5),
        cpu: figures.cpuMsPerStep / base.cpuMsPerStep,
      };
    });
    return {
      configuration: configuration.name,
      logLevel: configuration.logLevel,
      tracing: configuration.tracing,
      steps: intervals.length,
      stepP50Ms: quantile(intervals, 0.5),
      stepP95Ms: quantile(intervals, 0.95),
      outsideModelP50Ms: quantile(outsideModel, 0.5),
      outsideModelP95Ms: quantile(outsideModel, 0.95),
      compactionsPerProcess: mean(configuration, (figures) => figures.compactions),
      cpuMsPerStep: mean(configuration, (figures) => figures.cpuMsPerStep),
      logLinesPerStep: mean(configuration, (figures) => figures.logLinesPerStep),
      logBytesPerStep: mean(configuration, (figures) => figures.logBytesPerStep),
      spansPerStep: mean(configuration, (figures) => figures.spansPerStep),
      roundP50Ratios: perRound.map((figures) => figures.p50),
      roundCpuRatios: perRound.map((figures) => figures.cpu),
    };
  });
  const base = summary[0] as (typeof summary)[number];
  const loads = processes.map((figures) => figures.load);
  console.log(
    `${options.rounds} rounds × ${CONFIGURATIONS.length} configurations, one process each; ${options.simSteps} steps of 1 agent per process ` +
      `(first ${WARM_UP_STEPS} and compaction steps left out), embedded, 0 ms sim model, ${options.window / 1000}k window; ` +
      `1-minute load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)} ` +
      `(mean ${(loads.reduce((sum, load) => sum + load, 0) / loads.length).toFixed(1)})`,
  );
  console.log(
    renderTable(
      [
        "configuration",
        "steps",
        "step p50",
        "× base (rounds)",
        "step p95",
        "× base",
        "outside model p50",
        "× base",
        "CPU/step",
        "× base (rounds)",
        "log lines/step",
        "log bytes/step",
        "spans/step",
      ],
      summary.map((row) => [
        row.configuration,
        String(row.steps),
        formatMs(row.stepP50Ms),
        `${ratio(row.stepP50Ms, base.stepP50Ms)} ${roundRange(row.roundP50Ratios)}`,
        formatMs(row.stepP95Ms),
        ratio(row.stepP95Ms, base.stepP95Ms),
        formatMs(row.outsideModelP50Ms),
        ratio(row.outsideModelP50Ms, base.outsideModelP50Ms),
        formatMs(row.cpuMsPerStep),
        `${ratio(row.cpuMsPerStep, base.cpuMsPerStep)} ${roundRange(row.roundCpuRatios)}`,
        row.logLinesPerStep.toFixed(2),
        row.logBytesPerStep.toFixed(0),
        row.spansPerStep.toFixed(1),
      ]),
    ),
  );
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(
    RESULTS,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), options, warmUpSteps: WARM_UP_STEPS, summary, processes }, null, 2)}\n`,
  );
}
