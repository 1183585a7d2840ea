import { describe, expect, it } from "vitest";
import { createTarpit } from "./tarpit.ts";

// The timer is injected: each hold's length is recorded and the hold ends when the test says.
function tarpitWithTimer(options: { maxHeldPerTenant?: number } = {}) {
  const holds: Array<{ ms: number; end: () => void; fail: (error: Error) => void }> = [];
  const tarpit = createTarpit((tenantId) => ({ requestsPerSecond: tenantId === "slow" ? 2 : 10 }), {
    ...options,
    sleep: (ms) =>
      new Promise<void>((resolve, reject) => {
        holds.push({ ms, end: resolve, fail: reject });
      }),
  });
  return { tarpit, holds };
}

describe("tarpit of refusals for the rate", () => {
  it("holds the n-th refusal of a tenant until its bucket would have a token for it and the n before it, at most a second", () => {
    const { tarpit, holds } = tarpitWithTimer();
    for (let refusal = 0; refusal < 12; refusal += 1) void tarpit.hold("fast", 40);
    // 10 a second: one refill is 100 ms.
    expect(holds.map((hold) => hold.ms)).toEqual([
      40, 140, 240, 340, 440, 540, 640, 740, 840, 940, 1000, 1000,
    ]);
    expect(tarpit.held("fast")).toBe(12);
    // Another tenant's refusals are counted apart, at its own rate (2 a second: 500 ms a refill).
    void tarpit.hold("slow", 500);
    void tarpit.hold("slow", 500);
    expect(holds.slice(12).map((hold) => hold.ms)).toEqual([500, 1000]);
  });

  it("answers at once past its bound of held refusals, and counts a hold as ended when its timer ends or fails", async () => {
    const { tarpit, holds } = tarpitWithTimer({ maxHeldPerTenant: 2 });
    const first = tarpit.hold("fast", 10);
    const second = tarpit.hold("fast", 10);
    expect(tarpit.hold("fast", 10)).toBeUndefined();
    expect(holds).toHaveLength(2);
    holds[0]?.end();
    await first;
    expect(tarpit.held("fast")).toBe(1);
    holds[1]?.fail(new Error("timer cancelled"));
    await expect(second).rejects.toThrow("timer cancelled");
    expect(tarpit.held("fast")).toBe(0);
    // Nothing held: the next refusal waits for the next token only.
    void tarpit.hold("fast", 10);
    expect(holds[2]?.ms).toBe(10);
  });

  it("holds nothing when its longest hold is 0 (the tarpit turned off)", () => {
    const tarpit = createTarpit(() => ({ requestsPerSecond: 10 }), { maxHoldMs: 0 });
    expect(tarpit.hold("fast", 100)).toBeUndefined();
    expect(tarpit.held("fast")).toBe(0);
  });
});
