import { describe, expect, it } from "vitest";
import { runQueueContract } from "./contract/queue-contract.ts";
import { createInProcessJobStore, createInProcessQueue } from "./in-process-queue.ts";

runQueueContract("in-process", async () => {
  const store = createInProcessJobStore();
  return { open: (policy) => createInProcessQueue({ store, policy }), cleanup: async () => {} };
});

describe("in-process queue", () => {
  it("fails a job without retry when no handler is registered for it", async () => {
    const queue = createInProcessQueue();
    await queue.process({ "agent.step": async () => "ok" });
    const { id } = await queue.enqueue("agent.resume", {
      threadId: "t",
      agentId: "a",
      runId: "r",
      spawnCallId: "c",
    });
    await expect(queue.waitForJob(id)).resolves.toEqual({
      status: "failed",
      error: "no handler for agent.resume",
    });
    await queue.close();
  });
});
