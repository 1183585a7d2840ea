import { describe, expect, it } from "vitest";
import { MAX_FLUSH_MS, MIN_FLUSH_MS, nextFlushDelay } from "./flush-pace.ts";

describe("nextFlushDelay", () => {
  it("stays at the minimum while timers fire on time", () => {
    expect(nextFlushDelay(MIN_FLUSH_MS, 3)).toBe(MIN_FLUSH_MS);
  });

  it("backs off to twice the lateness when the page falls behind, up to a second", () => {
    // A batch that took ~120 ms to apply and draw made the 50 ms timer fire 120 ms late.
    expect(nextFlushDelay(MIN_FLUSH_MS, 120)).toBe(240);
    expect(nextFlushDelay(240, 900)).toBe(MAX_FLUSH_MS);
  });

  it("comes back to the minimum once the page keeps up again", () => {
    let delay = MAX_FLUSH_MS;
    for (let flush = 0; flush < 20; flush++) delay = nextFlushDelay(delay, 1);
    expect(delay).toBe(MIN_FLUSH_MS);
  });
});
