import { isLeaseLost } from "@longrun/protocol";
import { createTestRedis, EVENT_WAIT } from "@longrun/testing";
import { describe, expect, it, vi } from "vitest";
import { createMemoryLease, createRedisLease, type Lease } from "./lease.ts";
import { keepLease } from "./lease-keeper.ts";

const backends: [string, () => Promise<{ lease: Lease; cleanup: () => Promise<void> }>][] = [
  ["memory", async () => ({ lease: createMemoryLease(), cleanup: async () => {} })],
  [
    "redis",
    async () => {
      const redis = await createTestRedis();
      return { lease: createRedisLease(redis.redis, redis.prefix), cleanup: () => redis.cleanup() };
    },
  ],
];

describe.each(backends)("keepLease (%s)", (_name, open) => {
  it("holds a short lease for many ttls while renewing", async () => {
    const { lease, cleanup } = await open();
    try {
      const handle = await lease.acquire("agent-1", 300);
      const keeper = keepLease(handle!, { ttlMs: 300 });
      const startedAt = Date.now();
      // Waiting on the clock is the point: several ttls must pass.
      await vi.waitFor(() => expect(Date.now() - startedAt).toBeGreaterThan(1_000), {
        timeout: 5_000,
        interval: 50,
      });
      expect(await lease.acquire("agent-1", 10_000)).toBeNull();
      expect(keeper.signal.aborted).toBe(false);
      keeper.stop();
      expect(await handle!.release()).toBe(true);
    } finally {
      await cleanup();
    }
  });

  it("aborts its signal when the lease was lost", async () => {
    const { lease, cleanup } = await open();
    try {
      const handle = await lease.acquire("agent-1", 10_000);
      const keeper = keepLease(handle!, { ttlMs: 10_000, intervalMs: 20 });
      await handle!.release();
      const successor = await lease.acquire("agent-1", 10_000);
      await vi.waitFor(() => expect(keeper.signal.aborted).toBe(true), EVENT_WAIT);
      expect(String(keeper.signal.reason)).toMatch(/lease lost: agent-1/);
      expect(isLeaseLost(keeper.signal.reason)).toBe(true);
      expect(await successor!.renew()).toBe(true);
    } finally {
      await cleanup();
    }
  });
});
