import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a compaction with nothing to do", () => {
  it("is reported as skipped, not failed, and the manual run completes", async () => {
    harness = await createHarness({ simSteps: 1, maxInputTokens: 16_000 });
    const { runId, rootAgentId } = await harness.startThread("Look around the project.");
    await harness.waitForRunEnd(runId);
    const compactRun = await harness.runControl.admitCompaction(rootAgentId);
    const end = await harness.waitForRunEnd(compactRun.id);
    expect(end.type).toBe("run.completed");
    const ofRun = harness.events.filter((event) => event.runId === compactRun.id);
    const skipped = ofRun.find((event) => event.type === "compaction.skipped");
    expect(skipped?.data).toMatchObject({ trigger: "manual", reason: expect.stringContaining("nothing") });
    expect(ofRun.filter((event) => event.type === "compaction.failed")).toEqual([]);
    // No summary was asked for.
    expect(harness.sim.log.entries.filter((entry) => entry.summary)).toEqual([]);
  });
});
