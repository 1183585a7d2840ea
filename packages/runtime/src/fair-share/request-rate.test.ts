import { LongrunError } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { createRequestRate, type RequestRate } from "./request-rate.ts";
import { DEFAULT_TENANT_LIMITS, limitsOf } from "./tenant-limits.ts";

/** One request as the server takes it: a token, or the refusal thrown as the `rate_limited` error. */
function admit(rate: RequestRate, tenantId: string): void {
  const wait = rate.take(tenantId);
  if (wait === 0) return;
  const { message, details, retryAfterMs } = rate.refusal(tenantId, wait);
  throw new LongrunError("rate_limited", message, details, retryAfterMs);
}

function refusalOf(action: () => void): LongrunError | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (LongrunError.isInstance(error)) return error;
    throw error;
  }
}

describe("request rate per tenant", () => {
  const config = {
    defaults: DEFAULT_TENANT_LIMITS,
    overrides: { flood: { requestsPerSecond: 2, requestBurst: 3 } },
  };

  it("lets a burst through, refuses the next with rate_limited and when to retry, refills at the rate", () => {
    let now = 1_000_000;
    const rate = createRequestRate(
      (tenant) => limitsOf(config, tenant),
      () => now,
    );
    for (let request = 0; request < 3; request += 1) admit(rate, "flood");
    const refused = refusalOf(() => admit(rate, "flood"));
    expect(refused?.code).toBe("rate_limited");
    // One token at 2 per second: half a second.
    expect(refused?.retryAfterMs).toBe(500);
    now += 499;
    expect(refusalOf(() => admit(rate, "flood"))?.code).toBe("rate_limited");
    now += 1;
    expect(refusalOf(() => admit(rate, "flood"))).toBeUndefined();
  });

  it("take answers the wait instead of throwing, and counts like admit", () => {
    let now = 0;
    const rate = createRequestRate(
      (tenant) => limitsOf(config, tenant),
      () => now,
    );
    expect([rate.take("flood"), rate.take("flood"), rate.take("flood")]).toEqual([0, 0, 0]);
    expect(rate.take("flood")).toBe(500);
    now += 250;
    expect(rate.take("flood")).toBe(250);
    expect(rate.refusal("flood", 250)).toMatchObject({
      details: { limit: "requestsPerSecond", requestsPerSecond: 2, requestBurst: 3 },
      retryAfterMs: 250,
    });
  });

  it("keeps tenants apart: one tenant's empty bucket does not slow another", () => {
    const now = 5_000;
    const rate = createRequestRate(
      (tenant) => limitsOf(config, tenant),
      () => now,
    );
    for (let request = 0; request < 3; request += 1) admit(rate, "flood");
    expect(refusalOf(() => admit(rate, "flood"))).toBeDefined();
    for (let request = 0; request < DEFAULT_TENANT_LIMITS.requestBurst; request += 1) admit(rate, "quiet");
  });

  it("reads overrides over the defaults, field by field", () => {
    expect(limitsOf(config, "flood")).toEqual({
      ...DEFAULT_TENANT_LIMITS,
      requestsPerSecond: 2,
      requestBurst: 3,
    });
    expect(limitsOf(config, "anyone")).toEqual(DEFAULT_TENANT_LIMITS);
  });
});
