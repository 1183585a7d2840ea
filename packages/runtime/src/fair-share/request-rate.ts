import type { TenantLimits } from "./tenant-limits.ts";

/** Buckets kept before the full ones are swept. */
const TRACKED_TENANTS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** Why a tenant's request was refused for its rate: the parts of a `rate_limited` answer. */
export interface RateRefusal {
  message: string;
  details: { limit: "requestsPerSecond"; requestsPerSecond: number; requestBurst: number };
  retryAfterMs: number;
}

/**
 * Per-tenant request rate. `take(tenant)` takes one token and answers 0, or how many ms until one is
 * free; it never throws, so a server can answer a flood's 429s without building an Error for each
 * (the stack capture was a visible part of a 429's cost); `refusal` says why.
 */
export interface RequestRate {
  take(tenantId: string): number;
  /** The refusal of a request `take` answered with `retryAfterMs`. */
  refusal(tenantId: string, retryAfterMs: number): RateRefusal;
}

/** Token buckets per tenant, in this process (each server instance counts its own requests). */
export function createRequestRate(
  limitsOf: (tenantId: string) => Pick<TenantLimits, "requestsPerSecond" | "requestBurst">,
  now: () => number = Date.now,
): RequestRate {
  const buckets = new Map<string, Bucket>();
  const rate: RequestRate = {
    take(tenantId) {
      const { requestsPerSecond, requestBurst } = limitsOf(tenantId);
      const time = now();
      const bucket = buckets.get(tenantId);
      if (!bucket) {
        buckets.set(tenantId, { tokens: requestBurst - 1, at: time });
        if (buckets.size > TRACKED_TENANTS) forgetFull(time);
        return 0;
      }
      // Updated in place: a flood's refusals allocate nothing here.
      const refilled = Math.min(
        requestBurst,
        bucket.tokens + ((time - bucket.at) / 1000) * requestsPerSecond,
      );
      bucket.at = time;
      if (refilled < 1) {
        bucket.tokens = refilled;
        return Math.ceil(((1 - refilled) / requestsPerSecond) * 1000);
      }
      bucket.tokens = refilled - 1;
      return 0;
    },
    refusal(tenantId, retryAfterMs) {
      const { requestsPerSecond, requestBurst } = limitsOf(tenantId);
      return {
        message: `tenant ${tenantId} is over its request rate (${requestsPerSecond}/s, burst ${requestBurst}); retry after ${retryAfterMs} ms`,
        details: { limit: "requestsPerSecond", requestsPerSecond, requestBurst },
        retryAfterMs,
      };
    },
  };
  return rate;

  // A bucket that has refilled is the same as no bucket: forgetting those keeps the map to active tenants.
  function forgetFull(time: number) {
    for (const [tenantId, bucket] of buckets) {
      const { requestsPerSecond, requestBurst } = limitsOf(tenantId);
      if (bucket.tokens + ((time - bucket.at) / 1000) * requestsPerSecond >= requestBurst)
        buckets.delete(tenantId);
    }
  }
}
