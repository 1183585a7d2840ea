import { createTestRedis, EVENT_WAIT } from "@longrun/testing";
import { Queue } from "bullmq";
import { describe, expect, it, vi } from "vitest";
import { createBullmqQueue } from "./bullmq-queue.ts";
import { runQueueContract } from "./contract/queue-contract.ts";

runQueueContract("bullmq", async () => {
  const redis = await createTestRedis();
  return {
    open: (policy) =>
      createBullmqQueue({ connection: redis.url, prefix: redis.prefix, policy, stalledIntervalMs: 1_000 }),
    cleanup: () => redis.cleanup(),
  };
});

describe("bullmq queue", () => {
  it("validates payloads in the worker too: a bad job written by someone else fails without retry", async () => {
    const redis = await createTestRedis();
    const raw = new Queue("agent", { connection: { url: redis.url }, prefix: redis.prefix });
    const queue = createBullmqQueue({ connection: redis.url, prefix: redis.prefix });
    try {
      let calls = 0;
      await queue.process({
        "agent.step": async () => {
          calls += 1;
        },
      });
      const job = await raw.add("agent.step", { threadId: 42 }, { jobId: "forged-1", attempts: 5 });
      const outcome = await queue.waitForJob(job.id as string);
      expect(outcome).toMatchObject({ status: "failed" });
      expect(outcome.status === "failed" && outcome.error).toMatch(/invalid payload for agent.step/);
      expect(calls).toBe(0);
      expect(await raw.getJobState("forged-1")).toBe("failed");
    } finally {
      await raw.close();
      await queue.close({ graceMs: 0 });
      await redis.cleanup();
    }
  });

  it("keeps its keys under the deployment prefix, one BullMQ queue per queue name", async () => {
    const redis = await createTestRedis();
    const queue = createBullmqQueue({ connection: redis.url, prefix: redis.prefix });
    try {
      await queue.enqueue("agent.step", { threadId: "t", agentId: "a", runId: "r" });
      await queue.enqueue("agent.compact", { threadId: "t", agentId: "a", runId: "r", trigger: "auto" });
      const keys = await redis.redis.keys(`${redis.prefix}:*`);
      expect(keys.some((key) => key.startsWith(`${redis.prefix}:agent:`))).toBe(true);
      expect(keys.some((key) => key.startsWith(`${redis.prefix}:compaction:`))).toBe(true);
    } finally {
      await queue.close({ graceMs: 0 });
      await redis.cleanup();
    }
  });

  it("counts a job as running while its handler runs, even when BullMQ cannot record its end", async () => {
    const redis = await createTestRedis();
    const errors: string[] = [];
    const queue = createBullmqQueue({
      connection: redis.url,
      prefix: redis.prefix,
      onError: (error) => errors.push(error.message),
    });
    try {
      const events: string[] = [];
      queue.onJobEvent((event) => events.push(event.type));
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let started = () => {};
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      await queue.process({
        "agent.step": async () => {
          started();
          await held;
        },
      });
      const { id } = await queue.enqueue("agent.step", { threadId: "t", agentId: "a", runId: "r" });
      await running;
      expect(queue.runningJobs()).toBe(1);
      // The job's keys go while it runs (Redis lost its data, or the job was obliterated): BullMQ then
      // cannot move it to completed, and emits an error instead of "completed" or "failed".
      await redis.redis.del(`${redis.prefix}:agent:${id}`, `${redis.prefix}:agent:${id}:lock`);
      release();
      await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), EVENT_WAIT);
      expect(queue.runningJobs()).toBe(0);
      // What /v1/ops counted before: one "active" and no ending, so the worker showed a job forever.
      expect(events).toEqual(["active"]);
    } finally {
      await queue.close({ graceMs: 0 });
      await redis.cleanup();
    }
  });
});
