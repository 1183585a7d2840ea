import type { EventOf } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const ofType =
  <Type extends "compaction.prepared" | "compaction.completed">(type: Type) =>
  (event: { type: string }): event is EventOf<Type> =>
    event.type === type;

describe("background prefix compaction", () => {
  it("summarizes the older prefix off the steps once past the early line, and the compaction at the trigger applies it with no summary call of its own", async () => {
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000 });
    const { runId, threadId } = await harness.startThread("Survey the inventory project and keep notes.", {
      backgroundRatio: 0.8,
    });
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");

    const prepared = harness.events.filter(ofType("compaction.prepared"));
    const completed = harness.events.filter(ofType("compaction.completed"));
    const ready = prepared.filter((event) => event.data.outcome === "ready");
    const applied = completed.filter((event) => event.data.prepared === true);
    expect(ready.length).toBeGreaterThan(0);
    expect(applied.length).toBeGreaterThan(0);
    // Each summary the sim saw is either a background one or a compaction's own: none is made twice.
    const summaryCalls = harness.sim.log.entries.filter((entry) => entry.summary).length;
    expect(summaryCalls).toBe(prepared.length + completed.length - applied.length);
    // An applied compaction reports no summary call of its own; its summary message is the prepared text,
    // framed with the range it covers.
    for (const event of applied) expect(event.data.summaryCost).toBeUndefined();
    // A summary ready when its compaction comes due is applied inside the step that needs it (the step's
    // key), not by a job on the compaction queue (`job:` keys).
    expect(applied.some((event) => event.data.compactionKey.startsWith("step:"))).toBe(true);
    const compactions = await harness.store.compactions.list(
      (await harness.store.agents.listByThread(threadId))[0]?.id ?? "",
    );
    const appliedIds = new Set(applied.map((event) => event.data.compactionId));
    const appliedRows = compactions.filter((row) => appliedIds.has(row.id));
    expect(appliedRows.length).toBe(applied.length);
    for (const row of appliedRows) expect(String(row.summaryMessage.content)).toMatch(/^\[Context summary/);
    // Nothing prepared is left once the run ended on a compaction that used it, and a background
    // summary is prepared on each compaction in force at most once.
    const bases = ready.map((event) => event.data.cutoffMessageId);
    expect(new Set(bases).size).toBe(bases.length);
  });

  it("a compaction that comes due while its background summary is still being made waits for it, or is put off while the request fits, instead of making a second summary", async () => {
    // Summaries take 400 ms more than the agent's calls: the trigger comes before the summary is back.
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000, sim: { summaryDelayMs: 400 } });
    const { runId } = await harness.startThread("Survey the inventory project and keep notes.", {
      backgroundRatio: 0.8,
    });
    await harness.waitForRunEnd(runId);
    const prepared = harness.events.filter(ofType("compaction.prepared"));
    const completed = harness.events.filter(ofType("compaction.completed"));
    const applied = completed.filter((event) => event.data.prepared === true);
    const summaryCalls = harness.sim.log.entries.filter((entry) => entry.summary).length;
    expect(summaryCalls).toBe(prepared.length + completed.length - applied.length);
    // Every background summary that was kept was applied by the compaction that came next, though it
    // came back after that compaction was due (the last one may be left when the run ends first).
    const kept = prepared.filter(
      (event) => event.data.outcome === "ready" && event.data.reason === undefined,
    );
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.length).toBeGreaterThanOrEqual(kept.length - 1);
    const waited = applied.filter((event) => {
      const ready = prepared.findLast((ask) => ask.seq < event.seq);
      const started = harness?.events.findLast(
        (other) => other.type === "compaction.started" && other.seq < event.seq,
      );
      return ready !== undefined && started !== undefined && ready.seq > started.seq;
    });
    // The summary came back after the trigger: the compaction waited for it (the request over the limit)
    // or the steps went on without compacting until it was ready (the request still fitting).
    const deferred = harness.events.filter(
      (event) => event.type === "context.measured" && event.data.compactionDeferred === "summary-in-progress",
    );
    expect(waited.length + deferred.length).toBeGreaterThan(0);
  });

  it("a step due for compaction while its background summary is being made sends its request as it is when it fits, and a later compaction applies the summary", async () => {
    // The trigger at 65 % of the window (5,200 tokens) leaves 1,200 under the limit (6,400); summaries take
    // 1.5 s more than a call. A background summary starts only where a compaction would save 20 %: with
    // the trigger at 60 % (line 3,360) and the 8k summary budget at 240 tokens, every compaction left
    // about 100 tokens less, the request passed the line by little before one large tool result took it
    // past the trigger, and each ask was skipped for no progress (measured: asks at 3,436–4,613 tokens,
    // none started; none deferred). At 65 % the line is 3,640 (measured: 2 summaries started, 2 steps
    // deferred, both summaries applied after; 30 and 50 steps the same or more).
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000, sim: { summaryDelayMs: 1_500 } });
    const { runId } = await harness.startThread("Survey the inventory project and keep notes.", {
      backgroundRatio: 0.7,
      triggerRatio: 0.65,
    });
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");
    const events = harness.events;
    const deferred = events.filter(
      (event): event is EventOf<"context.measured"> =>
        event.type === "context.measured" && event.data.compactionDeferred === "summary-in-progress",
    );
    expect(deferred.length).toBeGreaterThan(0);
    for (const measured of deferred) {
      // Due, under the limit, and followed by the step's own answer, not by a compaction.
      expect(measured.data.needsCompaction).toBe(true);
      expect(measured.data.projectedTokens).toBeLessThanOrEqual(8_000);
      const next = events.find(
        (event) =>
          event.seq > measured.seq &&
          (event.type === "compaction.started" || event.type === "message.completed"),
      );
      expect(next?.type).toBe("message.completed");
    }
    const completed = events.filter(ofType("compaction.completed"));
    const applied = completed.filter((event) => event.data.prepared === true);
    const firstDeferred = deferred[0]?.seq ?? 0;
    expect(applied.some((event) => event.seq > firstDeferred)).toBe(true);
    const prepared = events.filter(ofType("compaction.prepared"));
    expect(harness.sim.log.entries.filter((entry) => entry.summary).length).toBe(
      prepared.length + completed.length - applied.length,
    );
  });

  it("is off with backgroundRatio 0: every compaction makes its own summary call", async () => {
    harness = await createHarness({ simSteps: 30, maxInputTokens: 8_000 });
    const { runId } = await harness.startThread("Survey the inventory project and keep notes.", {
      backgroundRatio: 0,
    });
    await harness.waitForRunEnd(runId);
    expect(harness.events.filter(ofType("compaction.prepared"))).toEqual([]);
    const completed = harness.events.filter(ofType("compaction.completed"));
    expect(completed.length).toBeGreaterThan(0);
    expect(completed.every((event) => event.data.prepared === undefined)).toBe(true);
    expect(harness.sim.log.entries.filter((entry) => entry.summary).length).toBe(completed.length);
  });
});
