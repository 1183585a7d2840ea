import { describe, expect, it } from "vitest";
import { reconnectDelay } from "./backoff.ts";

describe("reconnectDelay", () => {
  const options = { initialDelayMs: 100, maxDelayMs: 5_000 };

  it("doubles per attempt with equal jitter and stays under the cap", () => {
    expect(reconnectDelay(0, options, () => 0)).toBe(50);
    expect(reconnectDelay(0, options, () => 1)).toBe(100);
    expect(reconnectDelay(3, options, () => 0)).toBe(400);
    expect(reconnectDelay(3, options, () => 1)).toBe(800);
    for (const attempt of [10, 50, 10_000]) {
      expect(reconnectDelay(attempt, options, () => 1)).toBe(5_000);
      expect(reconnectDelay(attempt, options, () => 0)).toBe(2_500);
    }
  });
});
