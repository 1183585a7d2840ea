import { LongrunError } from "@longrun/protocol";
import { EVENT_WAIT } from "@longrun/testing";
import { expect, it, vi } from "vitest";
import { JobTimeoutError, UnrecoverableJobError } from "../errors.ts";
import type { JobEvent } from "../job-queue.ts";
import { abortOf, type OpenQueue, step } from "./queue-contract-support.ts";

/** Enqueue, run, retry, fail and time out: what happens to one job. */
export function runningCases(open: OpenQueue): void {
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
    const calls: [number, number, boolean][] = [];
    await queue.process({
      "agent.step": async (_payload, context) => {
        calls.push([context.attempt, context.maxAttempts, context.finalAttempt]);
        throw new Error("always");
      },
    });
    const { id } = await queue.enqueue("agent.step", step());
    await expect(queue.waitForJob(id)).resolves.toEqual({ status: "failed", error: "always" });
    // The handler knows which attempt is the last, from the policy in force (here an override of 2).
    expect(calls).toEqual([
      [1, 2, false],
      [2, 2, true],
    ]);
    await vi.waitFor(async () => expect((await queue.stats()).agent.failed).toBe(1), EVENT_WAIT);
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
}
