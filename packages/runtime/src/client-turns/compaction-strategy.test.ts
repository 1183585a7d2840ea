import { describe, expect, it } from "vitest";
import { gatewayCompactionStrategy } from "./compaction-strategy.ts";

const measured = (systemTokens: number, toolsTokens: number) => ({
  messages: [
    { role: "system" as const, content: "s" },
    { role: "user" as const, content: "u" },
  ],
  messageTokens: [systemTokens, 900],
  toolsTokens,
});

describe("how a gateway conversation is compacted", () => {
  const profile = { maxInputTokens: 20_000 };

  it("partial while the fixed prompt leaves room for a kept tail", () => {
    expect(gatewayCompactionStrategy(measured(3_000, 2_000), profile)).toBe("partial");
  });

  it("full (the tail summarized too) when the fixed prompt leaves none: qwen-code's ~85 % of the window", () => {
    expect(gatewayCompactionStrategy(measured(9_900, 3_728), profile)).toBe("full");
  });

  it("partial without a known window (the message-count rule applies)", () => {
    expect(gatewayCompactionStrategy(measured(90_000, 3_000), {})).toBe("partial");
  });
});
