import { describe, expect, it } from "vitest";
import { DRAW_ALL_UNDER, rangeOf } from "./use-virtual-list.ts";

/** Offsets of `count` entries of 100 px each. */
function evenOffsets(count: number): Float64Array {
  return Float64Array.from({ length: count + 1 }, (_, index) => index * 100);
}

describe("rangeOf", () => {
  it("draws a short list whole", () => {
    const count = DRAW_ALL_UNDER - 1;
    expect(rangeOf(evenOffsets(count), count, { top: 5_000, height: 600 }, true)).toEqual({
      first: 0,
      end: count,
      padTop: 0,
      padBottom: 0,
    });
  });

  it("draws the end of a long list while following, and pads for the rest", () => {
    const count = 5_000;
    const range = rangeOf(evenOffsets(count), count, { top: 0, height: 600 }, false);
    expect(range.end).toBe(count);
    // The view (600 px) and the overscan above it: a few dozen entries, not thousands.
    expect(range.end - range.first).toBeLessThan(40);
    expect(range.padTop).toBe(range.first * 100);
    expect(range.padBottom).toBe(0);
  });

  it("draws what surrounds the reader's view while anchored, with padding for both sides", () => {
    const count = 5_000;
    const range = rangeOf(evenOffsets(count), count, { top: 200_000, height: 600 }, true);
    expect(range.first).toBeLessThanOrEqual(2_000);
    expect(range.end).toBeGreaterThanOrEqual(2_006);
    expect(range.end - range.first).toBeLessThan(40);
    // Drawn plus padding is the whole list: the scrollbar stays true to it.
    expect(range.padTop + (range.end - range.first) * 100 + range.padBottom).toBe(count * 100);
  });

  it("clamps a view past either end", () => {
    const count = 1_000;
    expect(rangeOf(evenOffsets(count), count, { top: -500, height: 600 }, true).first).toBe(0);
    const past = rangeOf(evenOffsets(count), count, { top: 1e9, height: 600 }, true);
    expect(past.end).toBe(count);
    expect(past.padBottom).toBe(0);
  });
});
