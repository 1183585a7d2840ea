import type { ChatMessage } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";
import { staleAnswers } from "../upstream/provider-state.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function bodies(target: Harness) {
  return target.sim.log.entries.map((entry) => ({
    entry,
    messages: (entry.body as { messages: ChatMessage[] }).messages,
  }));
}

describe("compaction failures and limits", () => {
  it("opens the breaker after 3 summary failures, doubles the cooldown, and lets an overflow bypass it once", async () => {
    harness = await createHarness({
      simSteps: 400,
      maxInputTokens: 8_000,
      breaker: { threshold: 3, baseCooldownMs: 150, maxCooldownMs: 10_000 },
      // Each summary attempt retries a 5xx once, so 12 failing requests are 6 failed summaries.
      sim: { faults: { summaryFail: 12 } },
    });
    // Summaries only from the compactions (a background summary's failure counts on the breaker too).
    const { runId } = await harness.startThread("Explore everything in the project.", { backgroundRatio: 0 });
    const opened = [
      await harness.waitForEvent((event) => event.type === "breaker.opened"),
      await harness.waitForEvent(
        (event) =>
          event.type === "breaker.opened" &&
          harness!.events.filter((e) => e.type === "breaker.opened").length >= 2,
      ),
    ];
    const cooldowns = harness.events
      .filter((event) => event.type === "breaker.opened")
      .map((event) => (event.data as { cooldownMs: number }).cooldownMs);
    expect(cooldowns[0]).toBe(150);
    expect(cooldowns[1]).toBe(300);
    expect(opened).toHaveLength(2);
    const failures = harness.events.filter((event) => event.type === "compaction.failed");
    // Three failures before the first open, each with the breaker state of that moment.
    expect(failures.slice(0, 3).map((event) => (event.data as { breaker: string }).breaker)).toEqual([
      "closed",
      "closed",
      "open",
    ]);
    // Summaries recover after the injected failures: the breaker closes again.
    await harness.waitForEvent((event) => event.type === "breaker.closed");
    await harness.waitForEvent((event) => event.type === "compaction.completed");

    // Overflow bypass: open the breaker again, then force a provider overflow on the next main call.
    harness.sim.config.faults = { summaryFail: 6, key: "second-round" };
    harness.sim.reset();
    await harness.waitForEvent(
      (event) =>
        event.type === "breaker.opened" &&
        harness!.events.filter((e) => e.type === "breaker.opened").length >= 3,
    );
    harness.sim.config.faults = { overflow: true, times: 1, key: "overflow-once" };
    const bypass = await harness.waitForEvent(
      (event) =>
        event.type === "compaction.started" && (event.data as { trigger: string }).trigger === "overflow",
    );
    expect(bypass).toBeDefined();
    await harness.runControl.cancel(runId);
  }, 120_000);

  it("ends in context_exhausted instead of sending a request over the window", async () => {
    harness = await createHarness({ simSteps: 20, maxInputTokens: 4_096 });
    const huge = `Please handle this:\n${"inventory ledger reconciliation detail ".repeat(900)}`;
    const { runId, rootAgentId } = await harness.startThread(huge);
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.failed");
    expect((end.data as { error: { code: string } }).error.code).toBe("context_exhausted");
    const agent = await harness.store.agents.get(rootAgentId);
    expect(agent?.status).toBe("context_exhausted");
    // The sim model never saw an oversized main request.
    expect(
      harness.sim.log.entries.filter(
        (entry) => !entry.summary && entry.errorCode === "context_length_exceeded",
      ),
    ).toEqual([]);
    expect(harness.sim.log.entries.filter((entry) => !entry.summary)).toEqual([]);
  });

  it("manual compaction ends the turn; the next message continues the work", async () => {
    harness = await createHarness({ simSteps: 6, maxInputTokens: 16_000 });
    const { runId, threadId, rootAgentId } = await harness.startThread("Look around the project.");
    await harness.waitForRunEnd(runId);
    const compactRun = await harness.runControl.admitCompaction(rootAgentId);
    const compactEnd = await harness.waitForRunEnd(compactRun.id);
    expect(compactEnd.type).toBe("run.completed");
    const log = harness.sim.log.entries;
    const last = log.at(-1);
    expect(last?.summary).toBe(true);
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    const tail = facts.at(-1);
    expect(tail?.role).toBe("user");
    expect(String(tail?.content)).toContain("/compact");
    // No step ran after the summary: no model call, no tool call.
    const countAfter = log.length;
    await new Promise((resolve) => setImmediate(resolve));
    expect(harness.sim.log.entries.length).toBe(countAfter);
    const next = await harness.runControl.admitMessage({
      threadId,
      content: "Now continue: summarize the ledger.",
    });
    const nextEnd = await harness.waitForRunEnd(next.runId);
    expect(nextEnd.type).toBe("run.completed");
    expect(harness.sim.log.entries.length).toBeGreaterThan(countAfter);
  });

  it("never replays encrypted reasoning across a compaction, and replays what was issued since", async () => {
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000, reasoning: true });
    const { runId, rootAgentId } = await harness.startThread("Explore with reasoning on.");
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");
    expect((await harness.store.compactions.list(rootAgentId)).length).toBeGreaterThan(0);
    const requests = bodies(harness);
    expect(requests.every(({ entry }) => entry.status === 200)).toBe(true);
    // The first agent request that carries a summary message (a background summary may come earlier).
    const firstCompaction = requests.findIndex(
      ({ entry }) => !entry.summary && JSON.stringify(entry.body).includes("[Context summary"),
    );
    expect(firstCompaction).toBeGreaterThan(0);
    // Before the first compaction the chain is intact and reasoning is replayed; after it, only what the
    // answers since were issued on (the strict sim checks each against the prefix it followed); a
    // summary request never carries it.
    expect(requests.slice(0, firstCompaction).some(({ entry }) => entry.carriesProviderState)).toBe(true);
    expect(requests.slice(firstCompaction).some(({ entry }) => entry.carriesProviderState)).toBe(true);
    const facts = await harness.store.messages.list(rootAgentId);
    const compactions = await harness.store.compactions.list(rootAgentId);
    for (const { entry } of requests.filter(({ entry }) => !entry.summary))
      expect(staleAnswers(entry, facts, compactions)).toEqual([]);
    expect(requests.filter(({ entry }) => entry.summary && entry.carriesProviderState)).toEqual([]);
    expect(requests.some(({ entry }) => entry.summary)).toBe(true);
  }, 120_000);
});

describe("errors that retrying cannot fix", () => {
  it("fails the run at once when the provider does not know the model (no retry storm)", async () => {
    harness = await createHarness({ simSteps: 3, maxInputTokens: 64_000 });
    const { runId, threadId } = await harness.startThread("Look at the project.", { model: "gpt-unknown" });
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.failed");
    const error = (end.data as { error: { code: string; message: string } }).error;
    expect(error.message).toMatch(/provider refused the request.*does not exist/);
    // One request, not five retried attempts of five provider retries each.
    expect(harness.sim.log.entries.filter((entry) => entry.status === 404)).toHaveLength(1);
    const thread = await harness.store.threads.get(threadId);
    expect(thread?.status).toBe("failed");
  });

  it("shows an open breaker as a wait with its end, not as compacting for the whole cooldown", async () => {
    harness = await createHarness({
      simSteps: 400,
      maxInputTokens: 8_000,
      breaker: { threshold: 1, baseCooldownMs: 60_000, maxCooldownMs: 60_000 },
      sim: { faults: { summaryFail: 100 } },
    });
    const { runId } = await harness.startThread("Explore everything in the project.");
    const waiting = await harness.waitForEvent(
      (event) => event.type === "agent.status" && (event.data as { status: string }).status === "waiting",
    );
    expect((waiting.data as { reason?: string }).reason).toMatch(
      /breaker open: waiting until \d{4}-\d\d-\d\dT/,
    );
    await harness.runControl.cancel(runId);
  });

  it("keeps the agent working while the breaker is open and the request is under the hard limit", async () => {
    harness = await createHarness({
      simSteps: 400,
      maxInputTokens: 32_000,
      // Open after one failed summary, for far longer than this test: any model call after the opening
      // is one the agent made during the cooldown.
      breaker: { threshold: 1, baseCooldownMs: 10 * 60_000, maxCooldownMs: 10 * 60_000 },
      sim: { faults: { summaryFail: 1_000 } },
    });
    // The trigger at half of a 32k window: the breaker opens (a failed background summary, at 12.8k) far
    // enough under the hard limit (27.9k) that the agent has room for several calls whatever the sizes of
    // the files it reads (at 8k two reads of ~2k tokens took it from the opening to over the limit).
    const { runId, rootAgentId } = await harness.startThread("Explore everything in the project.", {
      triggerRatio: 0.5,
    });
    await harness.waitForEvent((event) => event.type === "breaker.opened");
    const mainCalls = () => harness!.sim.log.entries.filter((entry) => !entry.summary).length;
    const atOpening = mainCalls();
    // Before, the step after the failed compaction was delayed until the cooldown ended: no call at all.
    await vi.waitFor(() => expect(mainCalls()).toBeGreaterThanOrEqual(atOpening + 3), { timeout: 30_000 });
    expect((await harness.deps.breaker.state(rootAgentId)).state).toBe("open");
    // Every request fit the window (the deterministic projection, checked against the hard limit).
    const measured = harness.events.filter((event) => event.type === "context.measured");
    expect(measured.length).toBeGreaterThan(0);
    for (const event of measured)
      expect((event.data as { projectedTokens: number }).projectedTokens).toBeLessThanOrEqual(32_000 - 4_096);
    await harness.runControl.cancel(runId);
  });
});
