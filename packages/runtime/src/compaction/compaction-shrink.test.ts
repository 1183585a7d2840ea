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
    // Tasks of growing size leave less and less room next to the tools and the active tool loop.
    for (const words of [100, 150, 200, 250]) {
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
      }
      const entries = harness.sim.log.entries;
      harness.events.forEach((event, index) => {
        if (event.type !== "compaction.completed") return;
        const data = (event as EventOf<"compaction.completed">).data;
        expect(data.tokensAfter).toBeLessThanOrEqual(limit);
        const continued = harness?.events
          .slice(index + 1)
          .some((later) => later.type === "message.completed" && later.agentId === event.agentId);
        if ((data.shrunk ?? []).length > 0 && continued) shrunkThenContinued++;
      });
      // No oversized request ever reached the model.
      expect(entries.filter((entry) => entry.errorCode === "context_length_exceeded")).toEqual([]);
      expect(["run.completed", "run.failed"]).toContain(end.type);
      await harness.close();
      harness = undefined;
    }
    expect(shrunkThenContinued).toBeGreaterThan(0);
  }, 240_000);
});
