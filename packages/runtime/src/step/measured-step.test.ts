import type { EventOf } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("context.measured step", () => {
  it("is the agent's log position when measured, before and after compactions", async () => {
    // A small window: the run compacts many times, some compactions leaving no verbatim fact behind.
    harness = await createHarness({ simSteps: 30, maxInputTokens: 4_096 });
    const { runId, rootAgentId } = await harness.startThread("Survey the project and report.");
    await harness.waitForRunEnd(runId);
    expect(harness.events.filter((event) => event.type === "compaction.completed").length).toBeGreaterThan(2);
    // Replays the agent's facts in event order: each measurement names the newest fact logged before it.
    let logged = -1;
    const wrong: string[] = [];
    let measurements = 0;
    for (const event of harness.events) {
      if (event.agentId !== rootAgentId) continue;
      if (event.type === "message.completed") {
        logged = Math.max(logged, (event as EventOf<"message.completed">).data.seq);
      } else if (event.type === "context.measured") {
        measurements++;
        const { step } = (event as EventOf<"context.measured">).data;
        if (step !== logged) wrong.push(`measured step ${step} with the log at ${logged}`);
      }
    }
    expect(measurements).toBeGreaterThan(20);
    expect(wrong).toEqual([]);
  }, 120_000);
});
