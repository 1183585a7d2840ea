import { LongrunError } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { PolicyOverrides } from "../catalog.ts";
import { JobTimeoutError, UnrecoverableJobError } from "../errors.ts";
import type { JobEvent, JobQueue } from "../job-queue.ts";

/** Opens handles onto one backing store (BullMQ: one prefix; in-process: one shared job store). */
export interface QueueHarness {
  open(policy?: PolicyOverrides): JobQueue;
  cleanup(): Promise<void>;
}

const fast: PolicyOverrides = {
  "agent.step": { attempts: 3, backoffMs: 20 },
  "agent.compact": { attempts: 3, backoffMs: 20 },
};

const step = (runId = "run-1") => ({ threadId: "thread-1", agentId: "agent-1", runId });

/** A promise plus the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Simulated work inside a handler (not a wait in the test itself). */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves when the signal aborts. */
function abortOf(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

/** The one behaviour suite every JobQueue adapter must pass. */
export function runQueueContract(name: string, factory: () => Promise<QueueHarness>): void {
  describe(`JobQueue contract: ${name}`, () => {
    let harness: QueueHarness | undefined;
    let handles: JobQueue[] = [];
    const open = async (policy: PolicyOverrides = fast) => {
      harness ??= await factory();
      const queue = harness.open(policy);
      handles.push(queue);
      return queue;
    };

    afterEach(async () => {
      await Promise.all(handles.map((queue) => queue.close({ graceMs: 0 })));
      await harness?.cleanup();
      harness = undefined;
      handles = [];
    });

    it("runs an enqueued job with its parsed payload and context", async () => {
      const queue = await open();
      const seen: unknown[] = [];
      await queue.process({
        "agent.step": async (payload, context) => {
          seen.push({ payload, attempt: context.attempt, jobId: context.jobId, name: context.name });
          return { ok: payload.runId };
        },
      });
      const { id, deduplicated } = await queue.enqueue("agent.step", { ...step(), expectSeq: 4 });
      expect(deduplicated).toBe(false);
      await expect(queue.waitForJob(id)).resolves.toEqual({ status: "completed", result: { ok: "run-1" } });
      expect(seen).toEqual([
        { payload: { ...step(), expectSeq: 4 }, attempt: 1, jobId: id, name: "agent.step" },
      ]);
    });

    it("rejects invalid payloads, unknown jobs and bad job ids on enqueue", async () => {
      const queue = await open();
      const invalid = queue.enqueue("agent.step", { threadId: "", agentId: "a" } as never);
      await expect(invalid).rejects.toSatisfy(
        (error) => LongrunError.isInstance(error) && error.code === "bad_request",
      );
      await expect(
        queue.enqueue("agent.compact", { ...step(), trigger: "sometimes" } as never),
      ).rejects.toThrow(/invalid payload/);
      await expect(queue.enqueue("agent.nope" as never, step() as never)).rejects.toThrow(/unknown job/);
      await expect(queue.enqueue("agent.step", step(), { jobId: "a:b" })).rejects.toThrow(/invalid job id/);
      expect((await queue.stats()).agent.waiting).toBe(0);
    });

    it("retries a failing job with backoff until it succeeds", async () => {
      const queue = await open();
      const events: JobEvent[] = [];
      queue.onJobEvent((event) => events.push(event));
      await queue.process({
        "agent.step": async (_payload, context) => {
          if (context.attempt < 3) throw new Error(`flaky ${context.attempt}`);
          return "third time";
        },
      });
      const { id } = await queue.enqueue("agent.step", step());
      await expect(queue.waitForJob(id)).resolves.toEqual({ status: "completed", result: "third time" });
      const failures = events.filter((event) => event.type === "failed");
      expect(failures.map((event) => [event.attempt, event.willRetry, event.error])).toEqual([
        [1, true, "flaky 1"],
        [2, true, "flaky 2"],
      ]);
    });

    it("fails for good once attempts are exhausted", async () => {
      const queue = await open({ "agent.step": { attempts: 2, backoffMs: 10 } });
      let calls = 0;
      await queue.process({
        "agent.step": async () => {
          calls += 1;
          throw new Error("always");
        },
      });
      const { id } = await queue.enqueue("agent.step", step());
      await expect(queue.waitForJob(id)).resolves.toEqual({ status: "failed", error: "always" });
      expect(calls).toBe(2);
      await vi.waitFor(async () => expect((await queue.stats()).agent.failed).toBe(1));
    });

    it("does not retry an unrecoverable error", async () => {
      const queue = await open();
      let calls = 0;
      await queue.process({
        "agent.step": async () => {
          calls += 1;
          throw new UnrecoverableJobError("thread deleted");
        },
      });
      const { id } = await queue.enqueue("agent.step", step());
      await expect(queue.waitForJob(id)).resolves.toEqual({ status: "failed", error: "thread deleted" });
      expect(calls).toBe(1);
    });

    it("deduplicates compaction jobs per agent and run while one is waiting or active", async () => {
      const queue = await open();
      const compact = (agentId: string) => ({
        threadId: "thread-1",
        agentId,
        runId: "run-1",
        trigger: "auto" as const,
      });
      const first = await queue.enqueue("agent.compact", compact("agent-1"));
      const again = await queue.enqueue("agent.compact", { ...compact("agent-1"), trigger: "manual" });
      const other = await queue.enqueue("agent.compact", compact("agent-2"));
      expect(again).toEqual({ id: first.id, deduplicated: true });
      expect(other.deduplicated).toBe(false);
      expect((await queue.stats()).compaction.waiting).toBe(2);

      const release = gate();
      const started: string[] = [];
      await queue.process(
        {
          "agent.compact": async (payload, context) => {
            started.push(context.jobId);
            if (payload.agentId === "agent-1") await release.promise;
          },
        },
        { concurrency: 2 },
      );
      await queue.waitForJob(other.id);
      await vi.waitFor(() => expect(started).toContain(first.id));
      expect(await queue.enqueue("agent.compact", compact("agent-1"))).toEqual({
        id: first.id,
        deduplicated: true,
      });
      // Another run of the same agent (a /compact after the first run was cancelled mid-compaction)
      // is its own job, not dropped as a duplicate of the one still winding down.
      const nextRun = await queue.enqueue("agent.compact", {
        ...compact("agent-1"),
        runId: "run-2",
        trigger: "manual",
      });
      expect(nextRun.deduplicated).toBe(false);
      release.open();
      await queue.waitForJob(first.id);
      await queue.waitForJob(nextRun.id);
      const after = await queue.enqueue("agent.compact", compact("agent-1"));
      expect(after.deduplicated).toBe(false);
      expect(after.id).not.toBe(first.id);
      await queue.waitForJob(after.id);
    });

    it("treats a repeated explicit job id as a duplicate", async () => {
      const queue = await open();
      expect(await queue.enqueue("agent.step", step(), { jobId: "step-run-1-1" })).toEqual({
        id: "step-run-1-1",
        deduplicated: false,
      });
      expect(await queue.enqueue("agent.step", step(), { jobId: "step-run-1-1" })).toEqual({
        id: "step-run-1-1",
        deduplicated: true,
      });
      expect((await queue.stats()).agent.waiting).toBe(1);
    });

    it("runs a delayed job no earlier than its delay", async () => {
      const queue = await open();
      const ranAt: number[] = [];
      await queue.process({ "agent.step": async () => ranAt.push(Date.now()) });
      const enqueuedAt = Date.now();
      const { id } = await queue.enqueue("agent.step", step(), { delayMs: 300 });
      expect((await queue.stats()).agent.delayed).toBe(1);
      await queue.waitForJob(id);
      expect(ranAt[0]! - enqueuedAt).toBeGreaterThanOrEqual(290);
    });

    it("removes a waiting or delayed job, not a running one", async () => {
      const queue = await open();
      const delayed = await queue.enqueue("agent.step", step(), { delayMs: 60_000 });
      const waiting = await queue.enqueue("agent.step", step("run-2"));
      expect(await queue.remove(delayed.id)).toBe(true);
      expect(await queue.remove(waiting.id)).toBe(true);
      expect(await queue.remove(delayed.id)).toBe(false);
      expect(await queue.remove("no-such-job")).toBe(false);
      const stats = await queue.stats();
      expect([stats.agent.waiting, stats.agent.delayed]).toEqual([0, 0]);

      const release = gate();
      await queue.process({ "agent.step": () => release.promise });
      const running = await queue.enqueue("agent.step", step());
      await vi.waitFor(async () => expect((await queue.stats()).agent.active).toBe(1));
      expect(await queue.remove(running.id)).toBe(false);
      release.open();
      await expect(queue.waitForJob(running.id)).resolves.toMatchObject({ status: "completed" });
    });

    it("lists live jobs and removes the queued ones of a run (cancel), never a running one", async () => {
      const queue = await open();
      const release = gate();
      await queue.process({ "agent.step": () => release.promise });
      const running = await queue.enqueue("agent.step", step("run-1"));
      await vi.waitFor(async () => expect((await queue.stats()).agent.active).toBe(1));
      await queue.enqueue("agent.step", { ...step("run-1"), agentId: "agent-2" }, { delayMs: 60_000 });
      await queue.enqueue("agent.step", { ...step("run-1"), agentId: "agent-3" }, { delayMs: 60_000 });
      await queue.enqueue("agent.compact", { ...step("run-2"), trigger: "auto" });
      const live = await queue.listLive();
      expect(
        live.map((job) => `${job.name}:${(job.payload as { agentId: string }).agentId}:${job.state}`).sort(),
      ).toEqual([
        "agent.compact:agent-1:waiting",
        "agent.step:agent-1:active",
        "agent.step:agent-2:delayed",
        "agent.step:agent-3:delayed",
      ]);
      const removed = await queue.removeWhere((job) => (job.payload as { runId: string }).runId === "run-1");
      expect(removed).toBe(2);
      expect((await queue.listLive()).map((job) => job.state).sort()).toEqual(["active", "waiting"]);
      release.open();
      await expect(queue.waitForJob(running.id)).resolves.toMatchObject({ status: "completed" });
    });

    it("never runs more jobs at once than the concurrency", async () => {
      const queue = await open();
      let inFlight = 0;
      let most = 0;
      const paired = gate();
      await queue.process(
        {
          "agent.step": async () => {
            inFlight += 1;
            most = Math.max(most, inFlight);
            if (inFlight >= 2) paired.open();
            // Hold the first jobs until two overlap (or give up, and the assertion below fails),
            // then keep every job busy a little so that a third would overlap if the adapter allowed it.
            await Promise.race([paired.promise, delay(2_000)]);
            await delay(20);
            inFlight -= 1;
          },
        },
        { concurrency: { agent: 2 } },
      );
      const ids = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((n) => queue.enqueue("agent.step", step(`run-${n}`))),
      );
      await Promise.all(ids.map(({ id }) => queue.waitForJob(id)));
      expect(most).toBe(2);
    });

    it("reports per-queue stats", async () => {
      const queue = await open();
      const empty = await queue.stats();
      expect(empty.agent).toMatchObject({ waiting: 0, active: 0, delayed: 0, failed: 0, oldestWaitMs: null });
      await queue.enqueue("agent.step", step("run-1"));
      await queue.enqueue("agent.step", step("run-2"));
      await queue.enqueue("agent.compact", {
        threadId: "thread-1",
        agentId: "agent-1",
        runId: "run-1",
        trigger: "manual",
      });
      await queue.enqueue("agent.step", step("run-3"), { delayMs: 60_000 });
      const stats = await queue.stats();
      expect(stats.agent).toMatchObject({ waiting: 2, active: 0, delayed: 1, failed: 0 });
      expect(stats.compaction).toMatchObject({ waiting: 1, delayed: 0 });
      expect(stats.agent.oldestWaitMs).toBeGreaterThanOrEqual(0);
      await queue.process({ "agent.step": async () => "done" });
      await vi.waitFor(async () =>
        expect((await queue.stats()).agent).toMatchObject({ waiting: 0, completed: 2 }),
      );
    });

    it("lets active jobs finish within the grace period on close", async () => {
      const queue = await open();
      let aborted = false;
      const started = gate();
      await queue.process({
        "agent.step": async (_payload, context) => {
          started.open();
          await delay(100);
          aborted = context.signal.aborted;
          return "finished";
        },
      });
      const { id } = await queue.enqueue("agent.step", step());
      await started.promise;
      await queue.close({ graceMs: 10_000 });
      await expect(queue.waitForJob(id)).resolves.toEqual({ status: "completed", result: "finished" });
      expect(aborted).toBe(false);
    });

    it("aborts and re-queues unfinished jobs after the grace period; a new worker completes them", async () => {
      const first = await open();
      const events: JobEvent[] = [];
      first.onJobEvent((event) => events.push(event));
      const started = gate();
      let reason: unknown;
      await first.process({
        "agent.step": async (_payload, context) => {
          started.open();
          reason = await abortOf(context.signal);
          throw new Error("stopped");
        },
      });
      const { id } = await first.enqueue("agent.step", step());
      await started.promise;
      await first.close({ graceMs: 50 });
      expect(String(reason)).toMatch(/closing/);
      expect(events.map((event) => event.type)).toEqual(["active", "requeued"]);

      const second = await open();
      expect((await second.stats()).agent).toMatchObject({ waiting: 1, active: 0 });
      const attempts: number[] = [];
      await second.process({
        "agent.step": async (_payload, context) => {
          attempts.push(context.attempt);
          return "resumed";
        },
      });
      await expect(second.waitForJob(id)).resolves.toEqual({ status: "completed", result: "resumed" });
      expect(attempts).toEqual([1]);
    });

    it("aborts the signal and fails the attempt when a job times out", async () => {
      const queue = await open({ "agent.step": { attempts: 1, timeoutMs: 100 } });
      let reason: unknown;
      await queue.process({
        "agent.step": async (_payload, context) => {
          reason = await abortOf(context.signal);
          throw new Error("gave up");
        },
      });
      const { id } = await queue.enqueue("agent.step", step());
      await expect(queue.waitForJob(id)).resolves.toEqual({
        status: "failed",
        error: "agent.step timed out after 100 ms",
      });
      expect(reason).toBeInstanceOf(JobTimeoutError);
    });
  });
}
