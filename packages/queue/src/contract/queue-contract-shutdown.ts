import { expect, it } from "vitest";
import type { JobEvent } from "../job-queue.ts";
import { abortOf, delay, gate, type OpenQueue, step } from "./queue-contract-support.ts";

/** A graceful close: finishing within the grace period, re-queueing after it. */
export function shutdownCases(open: OpenQueue): void {
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
}
