import { createTokenizer } from "@longrun/compaction";
import { silentLogger } from "@longrun/protocol";
import {
  createInProcessQueue,
  createMemoryBus,
  createMemoryLease,
  createMemoryWorkerRegistry,
  createScheduler,
} from "@longrun/queue";
import {
  Coordinator,
  createBreaker,
  createMemoryBreakerStore,
  createPersistingEventSink,
  createToolRegistry,
  RunControl,
  type RuntimeDeps,
} from "@longrun/runtime";
import { createTempStore, type TempStore } from "@longrun/testing";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startWorker } from "./start-worker.ts";

let temp: TempStore | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

/** The worker shell over real parts; the model is never called here (no run exists to step). */
async function workerParts() {
  temp = await createTempStore();
  const store = temp.store;
  const queue = createInProcessQueue();
  const bus = createMemoryBus();
  const deps: RuntimeDeps = {
    store,
    model: new OpenAI({ baseURL: "http://127.0.0.1:9/v1", apiKey: "unused", maxRetries: 0 }),
    tools: createToolRegistry(),
    breaker: createBreaker({ store: createMemoryBreakerStore() }),
    events: createPersistingEventSink(store, bus),
    scheduler: createScheduler(queue, { lastSeq: async () => -1 }),
    lease: createMemoryLease(),
    tokenizer: createTokenizer("o200k_base"),
    log: silentLogger,
    now: () => Date.now(),
    timeZone: "UTC",
  };
  const coordinator = new Coordinator(deps);
  return { deps, queue, bus, coordinator, runControl: new RunControl(deps, coordinator) };
}

describe("startWorker", () => {
  it("runs the runtime's handler for each job of the catalog on the queue", async () => {
    const parts = await workerParts();
    const registry = createMemoryWorkerRegistry();
    const worker = await startWorker({ ...parts, registry, workerId: "worker-test" });
    const step = await parts.queue.enqueue("agent.step", { threadId: "t", agentId: "a", runId: "gone" });
    const compact = await parts.queue.enqueue("agent.compact", {
      threadId: "t",
      agentId: "a",
      runId: "gone",
      trigger: "auto",
    });
    // Both jobs reached the runtime's handlers, which read the log: the run does not exist.
    await expect(parts.queue.waitForJob(step.id)).resolves.toEqual({
      status: "completed",
      result: { skipped: "run finished" },
    });
    await expect(parts.queue.waitForJob(compact.id)).resolves.toEqual({
      status: "completed",
      result: { skipped: "run finished" },
    });
    await worker.close(100);
    await parts.bus.close();
  });

  it("announces itself in the worker registry while it runs, and leaves it on close", async () => {
    const parts = await workerParts();
    const registry = createMemoryWorkerRegistry();
    const worker = await startWorker({ ...parts, registry, workerId: "worker-test" });
    const listed = await registry.list(Date.now());
    expect(listed.map((info) => [info.id, info.pid, info.activeJobs])).toEqual([
      ["worker-test", process.pid, 0],
    ]);
    await worker.close(100);
    expect(await registry.list(Date.now())).toEqual([]);
    await parts.bus.close();
  });
});
