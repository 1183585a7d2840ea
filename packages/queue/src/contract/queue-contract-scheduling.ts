import { EVENT_WAIT } from "@longrun/testing";
import { expect, it, vi } from "vitest";
import { delay, gate, type OpenQueue, step } from "./queue-contract-support.ts";

/** Dedupe, delays, removal, live listing, concurrency and stats. */
export function schedulingCases(open: OpenQueue): void {
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
    await vi.waitFor(() => expect(started).toContain(first.id), EVENT_WAIT);
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
    await vi.waitFor(async () => expect((await queue.stats()).agent.active).toBe(1), EVENT_WAIT);
    expect(await queue.remove(running.id)).toBe(false);
    release.open();
    await expect(queue.waitForJob(running.id)).resolves.toMatchObject({ status: "completed" });
  });

  it("lists live jobs and removes the queued ones of a run (cancel), never a running one", async () => {
    const queue = await open();
    const release = gate();
    await queue.process({ "agent.step": () => release.promise });
    const running = await queue.enqueue("agent.step", step("run-1"));
    await vi.waitFor(async () => expect((await queue.stats()).agent.active).toBe(1), EVENT_WAIT);
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
    await vi.waitFor(
      async () => expect((await queue.stats()).agent).toMatchObject({ waiting: 0, completed: 2 }),
      EVENT_WAIT,
    );
  });
}
