import { describe, expect, it } from "vitest";
import { backoffDelay } from "./backoff.ts";

describe("backoffDelay", () => {
  it("doubles from the base with each retry and stops at the cap", () => {
    const fixed = { baseMs: 100, capMs: 1_000, jitter: 0 };
    expect([1, 2, 3, 4, 5, 6].map((retry) => backoffDelay(retry, fixed))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
    // Retry 0 (or below) is treated as the first; a huge retry count does not overflow.
    expect(backoffDelay(0, fixed)).toBe(100);
    expect(backoffDelay(10_000, fixed)).toBe(1_000);
  });

  it("makes the jitter share of the delay random, and only that share", () => {
    const equal = { baseMs: 100, capMs: 10_000, jitter: 0.5 };
    expect(backoffDelay(4, equal, () => 0)).toBe(400);
    expect(backoffDelay(4, equal, () => 1)).toBe(800);
    const full = { baseMs: 100, capMs: 10_000, jitter: 1 };
    expect(backoffDelay(4, full, () => 0)).toBe(0);
    expect(backoffDelay(4, full, () => 0.25)).toBe(200);
  });

  it("has no cap when the cap is infinite", () => {
    expect(backoffDelay(21, { baseMs: 1, capMs: Number.POSITIVE_INFINITY, jitter: 0 })).toBe(2 ** 20);
  });
});
