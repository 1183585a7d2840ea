import { LongrunError } from "@longrun/protocol";
import type { TenantLimits } from "./tenant-limits.ts";

/** Buckets kept before the full ones are swept. */
const TRACKED_TENANTS = 10_000;

interface Bucket {
  tokens: number;
  at: number;
}

/** Per-tenant request rate: `admit(tenant)` takes one token or throws `rate_limited` with a Retry-After. */
export interface RequestRate {
  admit(tenantId: string): void;
}

/** Token buckets per tenant, in this process (each server instance counts its own requests). */
export function createRequestRate(
  limitsOf: (tenantId: string) => Pick<TenantLimits, "requestsPerSecond" | "requestBurst">,
  now: () => number = Date.now,
): RequestRate {
  const buckets = new Map<string, Bucket>();
  return {
    admit(tenantId) {
      const { requestsPerSecond, requestBurst } = limitsOf(tenantId);
      const time = now();
      const previous = buckets.get(tenantId);
      const refilled = previous
        ? Math.min(requestBurst, previous.tokens + ((time - previous.at) / 1000) * requestsPerSecond)
        : requestBurst;
      if (refilled < 1) {
        buckets.set(tenantId, { tokens: refilled, at: time });
        const retryAfterMs = Math.ceil(((1 - refilled) / requestsPerSecond) * 1000);
        throw new LongrunError(
          "rate_limited",
          `tenant ${tenantId} is over its request rate (${requestsPerSecond}/s, burst ${requestBurst}); retry after ${retryAfterMs} ms`,
          { limit: "requestsPerSecond", requestsPerSecond, requestBurst },
          retryAfterMs,
        );
      }
      buckets.set(tenantId, { tokens: refilled - 1, at: time });
      if (buckets.size > TRACKED_TENANTS) forgetFull(time);
    },
  };

  // A bucket that has refilled is the same as no bucket: forgetting those keeps the map to active tenants.
  function forgetFull(time: number) {
    for (const [tenantId, bucket] of buckets) {
      const { requestsPerSecond, requestBurst } = limitsOf(tenantId);
      if (bucket.tokens + ((time - bucket.at) / 1000) * requestsPerSecond >= requestBurst)
        buckets.delete(tenantId);
    }
  }
}
