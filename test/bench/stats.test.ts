import { describe, expect, it } from "vitest";
import { quantile, share } from "./stats.ts";

describe("stats", () => {
  it("takes nearest-rank quantiles", () => {
    const values = [5, 1, 4, 2, 3];
    expect(quantile(values, 0.5)).toBe(3);
    expect(quantile(values, 0.95)).toBe(5);
    expect(quantile([], 0.5)).toBeNaN();
  });
  it("computes shares", () => {
    expect(share([true, false, true, true])).toBe(0.75);
  });
});
