import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildRuntime, createModelClient, loadConfig, startProcessWorker } from "@longrun/cli";
import { type LongrunEvent, ModelProfile, type ModelProfileInput } from "@longrun/protocol";
import { createThreadWithRoot } from "@longrun/runtime";
import { type SimModelConfig, simModelName, startSimModel } from "@longrun/sim-model";
import { createTempWorkspace } from "@longrun/testing";
import { embeddedInfra } from "./bench-infra.ts";

/** What one scripted agent's run left: its end, its events as they arrived (with arrival time), the store's view. */
export interface ScriptedAgentRun {
  end: string;
  events: Array<{ event: LongrunEvent; receivedAt: number }>;
  rootAgentId: string;
  store: Awaited<ReturnType<typeof embeddedInfra>>["store"];
}

/**
 * One agent of the default scripted sim agent, in embedded mode (in-process queue, libSQL file, sim
 * model over HTTP, one worker as embedded mode starts it, one agent step at a time), from its task to its run's end; `inspect` reads the store before it closes.
 */
export async function runScriptedAgent<T>(
  options: {
    maxInputTokens: number;
    simSteps: number;
    profile?: Partial<ModelProfileInput>;
    sim?: Partial<SimModelConfig>;
  },
  inspect: (run: ScriptedAgentRun) => Promise<T>,
): Promise<T> {
  const sim = await startSimModel({ port: 0, logBodies: false, ...options.sim });
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-agent-"));
  const workspace = await createTempWorkspace();
  const config = loadConfig({
    DATABASE_URL: `file:${join(dataDir, "longrun.db")}`,
    LONGRUN_DATA_DIR: dataDir,
    OPENAI_BASE_URL: sim.baseURL,
    OPENAI_API_KEY: "sim",
    LONGRUN_TIME_ZONE: "UTC",
    // One agent: one step at a time, and compaction jobs as embedded mode runs them.
    LONGRUN_WORKER_CONCURRENCY: "1",
  });
  const infra = await embeddedInfra(config, createModelClient(sim.baseURL, "sim"));
  const runtime = buildRuntime(infra, config);
  const worker = await startProcessWorker(infra, runtime, config, "bench-agent");
  const events: ScriptedAgentRun["events"] = [];
  let runId = "";
  let onEnd = (_type: string) => {};
  const unsubscribe = await infra.bus.subscribe("events", (event) => {
    events.push({ event, receivedAt: performance.now() });
    if (event.runId === runId && ["run.completed", "run.failed", "run.cancelled"].includes(event.type))
      onEnd(event.type);
  });
  try {
    const { thread, rootAgentId } = await createThreadWithRoot(runtime.deps, {
      tenantId: "bench",
      title: "scripted agent",
      workspaceDir: workspace.dir,
      modelProfile: ModelProfile.parse({
        model: simModelName({ steps: options.simSteps, ctx: options.maxInputTokens }),
        maxInputTokens: options.maxInputTokens,
        ...options.profile,
      }),
    });
    const ended = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the run did not finish in 10 minutes")), 600_000);
      onEnd = (type) => {
        clearTimeout(timer);
        resolve(type);
      };
    });
    runId = (
      await runtime.runControl.admitMessage({
        threadId: thread.id,
        content: "Survey the inventory project and keep notes.",
      })
    ).runId;
    const end = await ended;
    return await inspect({ end, events, rootAgentId, store: infra.store });
  } finally {
    await unsubscribe();
    await worker.close(1_000);
    await infra.bus.close();
    await infra.store.close();
    await sim.close();
    await workspace.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}
