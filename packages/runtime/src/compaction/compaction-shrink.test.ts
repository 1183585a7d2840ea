import { thresholds } from "@longrun/compaction";
import type { EventOf } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const WINDOW = 4_096;

describe("degrade before refusing", () => {
  it("shrinks summary and ledger when only they do not fit, and refuses only when the verbatim part is over", async () => {
    const limit = thresholds({ maxInputTokens: WINDOW }).limitTokens;
    let shrunkThenContinued = 0;
    const shrunkParts = new Set<string>();
    let refusals = 0;
    // Tasks of growing size leave less and less room next to the tools and the active tool loop. A
    // shrink that lets the run go on needs the verbatim part within a summary and a ledger of the limit:
    // at 4k they are 122 and 262 tokens of budget (measured: the sim's summary ~88 tokens, the ledger
    // ~141), so only tasks of about 170–190 repeats reach it; each 10 repeats add ~45 tokens. Steps of
    // 20 cannot jump over that band (steps of 50 did once the summary's budget went from 400 to 122).
    for (let words = 100; words <= 240; words += 20) {
      harness = await createHarness({ simSteps: 14, maxInputTokens: WINDOW });
      const task = `Please handle this:\n${"inventory ledger reconciliation detail ".repeat(words)}`;
      const { runId } = await harness.startThread(task);
      const end = await harness.waitForRunEnd(runId);

      for (const event of harness.events) {
        if (event.type !== "compaction.failed") continue;
        const data = (event as EventOf<"compaction.failed">).data;
        if (!data.contextExhausted) continue;
        // A refusal names the verbatim part's size, and it is over the limit: nothing else was left.
        const verbatim = Number(data.reason.match(/the verbatim part .* is (\d+) tokens/)?.[1]);
        expect(verbatim, data.reason).toBeGreaterThan(limit);
        refusals++;
      }
      // A refusal made no summary call and recorded nothing: every summary call the model saw belongs to a
      // recorded compaction or a background summary, and the compaction in force kept its summary.
      const completed = harness.events.filter((event) => event.type === "compaction.completed");
      const summaryCalls = harness.sim.log.entries.filter((entry) => entry.summary).length;
      const madeBySummaryCall =
        completed.filter((event) => (event as EventOf<"compaction.completed">).data.summaryCost).length +
        harness.events.filter((event) => event.type === "compaction.prepared").length;
      expect(summaryCalls).toBe(madeBySummaryCall);
      const agentIds = new Set(completed.map((event) => event.agentId));
      let recorded = 0;
      for (const agentId of agentIds)
        recorded += (await harness.store.compactions.list(agentId as string)).length;
      expect(recorded).toBe(completed.length);
      const entries = harness.sim.log.entries;
      harness.events.forEach((event, index) => {
        if (event.type !== "compaction.completed") return;
        const data = (event as EventOf<"compaction.completed">).data;
        expect(data.tokensAfter).toBeLessThanOrEqual(limit);
        const continued = harness?.events
          .slice(index + 1)
          .some((later) => later.type === "message.completed" && later.agentId === event.agentId);
        if ((data.shrunk ?? []).length > 0 && continued) {
          shrunkThenContinued++;
          for (const shrink of data.shrunk ?? []) shrunkParts.add(shrink.what);
        }
      });
      // No oversized request ever reached the model.
      expect(entries.filter((entry) => entry.errorCode === "context_length_exceeded")).toEqual([]);
      expect(["run.completed", "run.failed"]).toContain(end.type);
      await harness.close();
      harness = undefined;
    }
    expect(shrunkThenContinued).toBeGreaterThan(0);
    expect(shrunkParts).toContain("summary");
    expect(shrunkParts).toContain("ledger");
    expect(refusals, "the largest tasks leave the active tool loop over the limit").toBeGreaterThan(0);
  }, 240_000);
});
