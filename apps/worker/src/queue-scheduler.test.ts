import { createInProcessQueue, type JobPayload } from "@longrun/queue";
import { createTempStore } from "@longrun/testing";
import { describe, expect, it, vi } from "vitest";
import { createQueueScheduler } from "./queue-scheduler.ts";

describe("createQueueScheduler", () => {
  it("stamps each step with the log position it expects, and dedupes explicit job ids", async () => {
    const temp = await createTempStore();
    const queue = createInProcessQueue();
    const seen: JobPayload<"agent.step">[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await queue.process({
      "agent.step": async (payload) => {
        seen.push(payload);
        await gate;
      },
    });
    const scheduler = createQueueScheduler(queue, temp.store);
    const job = { threadId: "t", agentId: "a", runId: "r" };
    await scheduler.step(job);
    await temp.store.messages.append("a", { role: "user", content: "hello" });
    await scheduler.step(job, { jobId: "approval.call-1" });
    await scheduler.step(job, { jobId: "approval.call-1" });
    release();
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    expect(seen.map((payload) => payload.expectSeq)).toEqual([-1, 0]);
    await queue.close({ graceMs: 100 });
    await temp.cleanup();
  });
});
