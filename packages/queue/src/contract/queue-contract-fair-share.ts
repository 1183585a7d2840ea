import { expect, it } from "vitest";
import type { OpenQueue } from "./queue-contract-support.ts";

const stepOf = (tenantId: string, index: number) => ({
  threadId: `${tenantId}-thread-${index}`,
  agentId: `${tenantId}-agent-${index}`,
  runId: `${tenantId}-run-${index}`,
  tenantId,
});

/** Fair share: one tenant's backlog does not delay another tenant's next job. */
export function fairShareCases(open: OpenQueue): void {
  it("takes a quiet tenant's job before a flooding tenant's backlog, and interleaves two busy tenants", async () => {
    const queue = await open();
    // Tenant B floods first: 30 jobs queued before any worker runs.
    for (let index = 0; index < 30; index += 1) await queue.enqueue("agent.step", stepOf("B", index));
    // Then tenant A asks for three steps, and a job with no tenant comes in too.
    for (let index = 0; index < 3; index += 1) await queue.enqueue("agent.step", stepOf("A", index));
    await queue.enqueue("agent.step", { threadId: "t", agentId: "a", runId: "untenanted" });

    const order: string[] = [];
    let done = 0;
    const finished = new Promise<void>((resolve) => {
      void queue.process(
        {
          "agent.step": async (payload) => {
            order.push(payload.runId);
            done += 1;
            if (done === 34) resolve();
          },
        },
        { concurrency: 1 },
      );
    });
    await finished;
    // A's first job is taken right after B's first (both were first of their tenant: FIFO), not after
    // B's thirty; A's second after B's second, and so on: the tenants alternate while both have work.
    expect(order.slice(0, 7)).toEqual([
      "B-run-0",
      "A-run-0",
      "untenanted",
      "B-run-1",
      "A-run-1",
      "B-run-2",
      "A-run-2",
    ]);
    expect(order.slice(7)).toEqual(Array.from({ length: 27 }, (_, index) => `B-run-${index + 3}`));
  });

  it("forgets a removed job in its tenant's share: the tenant's next job is not pushed back by it", async () => {
    const queue = await open();
    for (let index = 0; index < 5; index += 1) await queue.enqueue("agent.step", stepOf("B", index));
    expect(await queue.removeWhere((job) => (job.payload as { tenantId?: string }).tenantId === "B")).toBe(5);
    await queue.enqueue("agent.step", stepOf("C", 0));
    await queue.enqueue("agent.step", stepOf("B", 9));
    const order: string[] = [];
    await new Promise<void>((resolve) => {
      void queue.process(
        {
          "agent.step": async (payload) => {
            order.push(payload.runId);
            if (order.length === 2) resolve();
          },
        },
        { concurrency: 1 },
      );
    });
    // B's removed backlog no longer counts: its new job is as early as C's (FIFO between them).
    expect(order).toEqual(["C-run-0", "B-run-9"]);
  });
}
