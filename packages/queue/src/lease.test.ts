import { createTestRedis } from "@longrun/testing";
import { describe, expect, it } from "vitest";
import { runLeaseContract } from "./contract/lease-contract.ts";
import { createMemoryLease, createRedisLease } from "./lease.ts";

runLeaseContract("memory", async () => ({ lease: createMemoryLease(), cleanup: async () => {} }));

runLeaseContract("redis", async () => {
  const redis = await createTestRedis();
  return { lease: createRedisLease(redis.redis, redis.prefix), cleanup: () => redis.cleanup() };
});

describe("redis lease", () => {
  it("shares the fence between processes: two clients see one sequence of tokens", async () => {
    const first = await createTestRedis();
    const second = await createTestRedis();
    try {
      const leaseA = createRedisLease(first.redis, first.prefix);
      const leaseB = createRedisLease(second.redis, first.prefix);
      const a = await leaseA.acquire("agent-1", 10_000);
      expect(await leaseB.acquire("agent-1", 10_000)).toBeNull();
      await a!.release();
      const b = await leaseB.acquire("agent-1", 10_000);
      expect(b!.token).toBe(a!.token + 1);
      expect(await first.redis.pttl(`${first.prefix}:lease:agent-1`)).toBeGreaterThan(9_000);
    } finally {
      await first.cleanup();
      await second.cleanup();
    }
  });

  it("keeps tokens increasing after Redis lost every key, given the database's fence as the floor", async () => {
    const redis = await createTestRedis();
    try {
      const lease = createRedisLease(redis.redis, redis.prefix);
      const before = await lease.acquire("agent-1", 10_000);
      await before!.release();
      // Redis restarted empty: the counter is gone. The log recorded `before.token + 40` meanwhile.
      await redis.redis.del(`${redis.prefix}:fence:agent-1`, `${redis.prefix}:lease:agent-1`);
      const dbFence = before!.token + 40;
      const after = await lease.acquire("agent-1", 10_000, { floor: dbFence });
      expect(after!.token).toBe(dbFence + 1);
      // The counter itself expires: the database is the authority, Redis only needs to outlive a lease.
      expect(await redis.redis.pttl(`${redis.prefix}:fence:agent-1`)).toBeGreaterThan(60_000);
      // A holder from before the loss, still working, takes its lease back: nothing issued a higher token.
      await redis.redis.del(`${redis.prefix}:fence:agent-1`, `${redis.prefix}:lease:agent-1`);
      expect(await after!.renew()).toBe(true);
      expect(await redis.redis.get(`${redis.prefix}:lease:agent-1`)).toBe(String(after!.token));
      expect(Number(await redis.redis.get(`${redis.prefix}:fence:agent-1`))).toBe(after!.token);
    } finally {
      await redis.cleanup();
    }
  });
});
