import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRuntime, createLogger, loadConfig, startProcessWorker, startTracing } from "@longrun/cli";
import { ModelProfile } from "@longrun/protocol";
import { createThreadWithRoot } from "@longrun/runtime";
import { simModelName, startSimModel } from "@longrun/sim-model";
import { createTempWorkspace } from "@longrun/testing";
import { embeddedInfra, type ModelCall, stepTimes, timedModel } from "../bench-infra.ts";
import { DISCARD_SPANS, type FromStepProcess } from "./messages.ts";

// One configuration of the observability bench in its own process, wired as `longrun start` wires
// embedded mode: tracing started first from the OTEL_* variables (the SDK is loaded only when an
// endpoint is set), the pino logger at LONGRUN_LOG_LEVEL writing JSON lines to stdout (a pipe the
// bench drains), then one agent runs `argv[2]` steps on the in-process queue, a libSQL file and a 0 ms
// sim model over HTTP through the `openai` client. The sim runs in this process, as in lean-step: its
// share of the CPU is the same in every configuration.

const simSteps = Number(process.argv[2] ?? 120);
const window = Number(process.argv[3] ?? 16_000);

/** Spans the discarding exporter was given (it keeps none). */
let discardedSpans = 0;

/** An exporter that takes every batch and keeps nothing (ExportResultCode.SUCCESS is 0). */
const discardingExporter: NonNullable<NonNullable<Parameters<typeof startTracing>[2]>["exporter"]> = {
  export: (spans, done) => {
    discardedSpans += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => {},
};

function reply(message: FromStepProcess): Promise<void> {
  return new Promise((resolve) => process.send?.(message, () => resolve()));
}

async function run(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-observability-"));
  // Only the variables this bench sets: a stray DATABASE_URL in the caller's shell must not leak in.
  const config = loadConfig({
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_TIME_ZONE: "UTC",
    LONGRUN_LOG_LEVEL: process.env.LONGRUN_LOG_LEVEL,
    OTEL_EXPORTER_OTLP_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const discard = process.env[DISCARD_SPANS] === "1";
  const tracing = await startTracing("start", config, discard ? { exporter: discardingExporter } : {});
  const sim = await startSimModel({ port: 0, logBodies: false });
  const workspace = await createTempWorkspace();
  const calls: ModelCall[] = [];
  const infra = await embeddedInfra(config, timedModel(sim.baseURL, calls));
  infra.log = createLogger({ level: config.logLevel, role: "start" });
  const runtime = buildRuntime(infra, config);
  const worker = await startProcessWorker(infra, runtime, config);
  try {
    const { thread, rootAgentId } = await createThreadWithRoot(runtime.deps, {
      tenantId: "bench",
      title: "observability",
      workspaceDir: workspace.dir,
      modelProfile: ModelProfile.parse({
        model: simModelName({ steps: simSteps, ctx: window }),
        maxInputTokens: window,
      }),
    });
    let status = "";
    const finished = new Promise<void>((resolve) => {
      void infra.bus.subscribe("events", (event) => {
        if (event.threadId !== thread.id) return;
        if (!["run.completed", "run.failed", "run.cancelled"].includes(event.type)) return;
        status = event.type;
        resolve();
      });
    });
    const cpuBefore = process.cpuUsage();
    await runtime.runControl.admitMessage({ threadId: thread.id, content: "Survey the inventory project." });
    await finished;
    // Exports what the batch processor still holds (inside the CPU figure: exporting is part of the cost),
    // so the receiver has every span of this process when the bench reads the result.
    await tracing.shutdown();
    const cpu = process.cpuUsage(cpuBefore);
    const steps = calls.filter((call) => !call.summary).length;
    await reply({
      type: "result",
      status,
      tracing: !tracing.enabled ? "off" : discard ? "discarded" : "otlp",
      discardedSpans,
      logLevel: config.logLevel,
      steps,
      summaries: calls.length - steps,
      compactions: (await infra.store.compactions.list(rootAgentId)).length,
      ...stepTimes(calls),
      cpuMs: (cpu.user + cpu.system) / 1000,
    });
  } finally {
    await worker.close(1_000);
    await infra.bus.close();
    await infra.store.close();
    await sim.close();
    await workspace.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

try {
  await run();
  process.exit(0);
} catch (error) {
  await reply({
    type: "failed",
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  process.exit(1);
}
