import { EVENT_WAIT } from "@longrun/testing";
import { describe, expect, it, vi } from "vitest";
import type { JobPayload } from "./catalog.ts";
import { createInProcessQueue } from "./in-process-queue.ts";
import { createScheduler } from "./scheduler.ts";

describe("createScheduler", () => {
  it("stamps each step with the log position it expects, and dedupes explicit job ids", async () => {
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
    let lastSeq = -1;
    const scheduler = createScheduler(queue, { lastSeq: async () => lastSeq });
    const job = { threadId: "t", agentId: "a", runId: "r" };
    await scheduler.step(job);
    lastSeq = 0;
    await scheduler.step(job, { jobId: "approval.call-1" });
    await scheduler.step(job, { jobId: "approval.call-1" });
    await scheduler.step({ ...job, agentId: "b", runId: "r2" }, { expectSeq: 7, delayMs: 60_000 });
    expect(await scheduler.liveAgents()).toEqual(new Set(["a", "b"]));
    // Cancelling a run drops its queued jobs (here one delayed step), not the other run's.
    expect(await scheduler.cancelRun("r2")).toBe(1);
    expect(await scheduler.liveAgents()).toEqual(new Set(["a"]));
    release();
    await vi.waitFor(() => expect(seen).toHaveLength(2), EVENT_WAIT);
    expect(seen.map((payload) => payload.expectSeq)).toEqual([-1, 0]);
    await queue.close({ graceMs: 100 });
  });
});
