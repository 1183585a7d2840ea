import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";
import { createReconciler } from "./reconciler.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Runs pending jobs (manual mode) until none is left or `limit` ran. */
async function drain(target: Harness, limit = 500): Promise<number> {
  let ran = 0;
  while (target.pending.length > 0 && ran < limit) {
    await target.runNext();
    ran += 1;
  }
  return ran;
}

const reconcilerOf = (target: Harness, maxRecoveries = 3) =>
  createReconciler(target.deps, target.runControl, target.coordinator, {
    staleAfterMs: 60_000,
    maxRecoveries,
  });

describe("the reconciler", () => {
  it("finishes a run whose jobs were all lost (an embedded restart), from the log alone", async () => {
    harness = await createHarness({ simSteps: 8, maxInputTokens: 64_000, manual: true });
    const { runId, rootAgentId } = await harness.startThread("Survey the project.");
    for (let step = 0; step < 3; step++) await harness.runNext();
    // The process died: every queued job is gone; the log and the run row remain.
    harness.pending.length = 0;
    const before = (await harness.store.messages.list(rootAgentId)).length;

    const reconciler = reconcilerOf(harness);
    // While the thread still looks busy (a recent event) nothing is second-guessed...
    expect((await reconciler.pass()).recovered).toEqual([]);
    // ...after a restart every job is known to be gone: recover now.
    const report = await reconciler.pass({ immediate: true });
    expect(report.recovered).toEqual([{ runId, agentId: rootAgentId, action: "step" }]);
    await drain(harness);
    expect((await harness.store.runs.get(runId))?.status).toBe("completed");
    const facts = await harness.store.messages.list(rootAgentId);
    expect(facts.length).toBeGreaterThan(before);
    expect(facts.map((fact) => fact.seq)).toEqual(facts.map((_, index) => index));
    // Every call answered exactly once, none run twice.
    const calls = facts.flatMap((fact) => fact.toolCalls ?? []).map((call) => call.id);
    const results = facts.filter((fact) => fact.role === "tool").map((fact) => fact.toolCallId);
    expect([...results].sort()).toEqual([...calls].sort());
    // Nothing left to recover.
    expect((await reconciler.pass({ immediate: true })).activeRuns).toBe(0);
  });

  it("applies a decision whose step was lost, and starts a queued run nobody started", async () => {
    harness = await createHarness({ simSteps: 3, maxInputTokens: 64_000, manual: true, script: "approval" });
    const { runId, rootAgentId, threadId } = await harness.startThread("Run the checks.");
    await drain(harness);
    const approval = (await harness.store.agentState.get(rootAgentId)).pendingApprovals[0];
    expect(approval).toBeDefined();
    await harness.runControl.resolveApproval({
      agentId: rootAgentId,
      callId: approval?.callId ?? "",
      decision: "approve",
    });
    // The step that would apply it is lost.
    harness.pending.length = 0;
    const queued = await harness.runControl.admitMessage({ threadId, content: "Then summarize." });
    expect(queued.queued).toBe(true);

    const reconciler = reconcilerOf(harness);
    expect((await reconciler.pass({ immediate: true })).recovered).toEqual([
      { runId, agentId: rootAgentId, action: "step" },
    ]);
    await drain(harness);
    expect((await harness.store.runs.get(runId))?.status).toBe("completed");
    // The run behind it was started when the first ended.
    expect((await harness.store.runs.get(queued.runId))?.status).not.toBe("queued");
    const facts = await harness.store.messages.list(rootAgentId);
    const result = facts.find((fact) => fact.toolCallId === approval?.callId);
    expect(result?.toolStatus).toBe("ok");
  });

  it("marks a run stuck, with a reason and an event, when recovering it again and again changes nothing", async () => {
    harness = await createHarness({ simSteps: 5, maxInputTokens: 64_000, manual: true });
    const { runId } = await harness.startThread("Survey the project.");
    const reconciler = reconcilerOf(harness, 2);
    for (let pass = 0; pass < 2; pass++) {
      harness.pending.length = 0;
      expect((await reconciler.pass({ immediate: true })).recovered).toHaveLength(1);
    }
    harness.pending.length = 0;
    const report = await reconciler.pass({ immediate: true });
    expect(report.stuck).toEqual([
      { runId, reason: expect.stringContaining("no progress after 2 recoveries") },
    ]);
    const run = await harness.store.runs.get(runId);
    expect(run).toMatchObject({ status: "stuck", error: { code: "stuck" } });
    expect(harness.events.some((event) => event.type === "run.stuck" && event.runId === runId)).toBe(true);
    // A stuck run is still active: when a job finally runs, it moves again and finishes.
    await harness.deps.scheduler.step({ threadId: run?.threadId ?? "", agentId: run?.agentId ?? "", runId });
    await drain(harness);
    expect(harness.events.some((event) => event.type === "run.resumed" && event.runId === runId)).toBe(true);
    expect((await harness.store.runs.get(runId))?.status).toBe("completed");
  });
});
