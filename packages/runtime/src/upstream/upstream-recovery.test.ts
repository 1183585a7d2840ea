import type { LongrunEvent, UpstreamApi } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const FORMATS: UpstreamApi[] = ["chat-completions", "responses", "anthropic-messages"];

function profileFor(api: UpstreamApi) {
  return { upstreamApi: api, ...(api === "anthropic-messages" ? { thinkingBudgetTokens: 1024 } : {}) };
}

/** Resolves at the agent's `count`-th answer. */
function answers(target: Harness, count: number): Promise<LongrunEvent> {
  return target.waitForEvent(
    (event) =>
      event.type === "message.completed" &&
      event.data.role === "assistant" &&
      target.events.filter((seen) => seen.type === "message.completed" && seen.data.role === "assistant")
        .length >= count,
  );
}

describe.each(FORMATS)("over %s", (api) => {
  it("recovers by itself when the provider refuses its replayed reasoning: one refusal, one event", async () => {
    harness = await createHarness({ simSteps: 10, maxInputTokens: 64_000, reasoning: true });
    const { runId } = await harness.startThread("Explore with reasoning on.", profileFor(api));
    await answers(harness, 3);
    // The provider's key changes: every reasoning item it issued before no longer verifies.
    harness.sim.config.secret = `rotated-${api}`;
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");
    const dropped = harness.events.filter((event) => event.type === "reasoning.dropped");
    expect(dropped).toHaveLength(1);
    expect(dropped[0]?.type === "reasoning.dropped" && dropped[0].data.messages).toBeGreaterThan(0);
    const refused = harness.sim.log.entries.filter((entry) => entry.status !== 200);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.api).toBe(api);
  }, 120_000);

  it("sends the provider's overflow error to a compaction, once", async () => {
    harness = await createHarness({ simSteps: 8, maxInputTokens: 64_000, reasoning: true });
    const { runId } = await harness.startThread("Explore the project.", {
      ...profileFor(api),
      backgroundRatio: 0,
    });
    await answers(harness, 2);
    harness.sim.config.faults = { overflow: true, times: 1, key: `overflow-${api}` };
    const started = await harness.waitForEvent(
      (event) => event.type === "compaction.started" && event.data.trigger === "overflow",
    );
    expect(started.agentId).toBeDefined();
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");
    const refused = harness.sim.log.entries.filter((entry) => entry.status !== 200);
    expect(refused.map((entry) => [entry.api, entry.errorCode])).toEqual([[api, "context_length_exceeded"]]);
  }, 120_000);
});
