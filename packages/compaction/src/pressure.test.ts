import { describe, expect, it } from "vitest";
import { ESTIMATE_PAD, measurePressure } from "./pressure.ts";
import { thresholds } from "./thresholds.ts";

describe("measurePressure", () => {
  it("anchors on usage minus hidden reasoning plus the tail, never below the estimate", () => {
    const usage = { promptTokens: 1_000, completionTokens: 300, reasoningTokens: 200, totalTokens: 1_300 };
    const anchored = measurePressure({ messageTokens: [400, 400, 50, 60], anchor: { index: 1, usage } });
    expect(anchored.anchored).toBe(1_000 + 300 - 200 + 50 + 60);
    expect(anchored.tokens).toBe(1_210);
    const repairedSince = measurePressure({ messageTokens: [4_000, 400, 50], anchor: { index: 1, usage } });
    expect(repairedSince.tokens).toBe(4_450);
    const estimatedReasoning = measurePressure({
      messageTokens: [10, 10],
      anchor: { index: 1, usage: { ...usage, reasoningTokens: undefined }, estimatedReasoningTokens: 120 },
    });
    expect(estimatedReasoning.anchored).toBe(1_180);
  });

  it("pads a pure estimate", () => {
    expect(measurePressure({ messageTokens: [100, 100], anchor: null, extraTokens: 20 }).tokens).toBe(
      Math.ceil(220 * ESTIMATE_PAD),
    );
  });
});

describe("thresholds", () => {
  it("uses 66 % / 5 % of a known window and 100k / 6 messages without one", () => {
    expect(thresholds({ maxInputTokens: 200_000, maxOutputTokens: 8_000 })).toEqual({
      triggerTokens: 132_000,
      limitTokens: 192_000,
      keepTokens: 10_000,
      keepMessages: 6,
    });
    expect(thresholds({})).toMatchObject({ triggerTokens: 100_000, keepTokens: null, keepMessages: 6 });
    // Without a window the limit guesses it from the fallback trigger, whatever ratio a window gets.
    expect(thresholds({}).limitTokens).toBe(133_333);
    expect(thresholds({ triggerRatio: 0.5 }).limitTokens).toBe(133_333);
  });
});
