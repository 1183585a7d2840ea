import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Breaker, createBreaker } from "./breaker.ts";
import { type BreakerStore, createMemoryBreakerStore } from "./breaker-store.ts";
import { createRedisBreakerStore } from "./redis-breaker-store.ts";

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

// Both stores run the same behaviour suite; the Redis one against the real server.
let redis: Redis;
const prefix = `longrun-test:breaker:${randomUUID()}:`;

beforeAll(() => {
  redis = new Redis("redis://127.0.0.1:6379", { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const stores: [string, () => BreakerStore][] = [
  ["memory", () => createMemoryBreakerStore()],
  ["redis", () => createRedisBreakerStore({ redis, prefix })],
];

function setup(makeStore: () => BreakerStore) {
  const clock = { now: 1_000_000 };
  const breaker = createBreaker({ store: makeStore(), now: () => clock.now });
  return { clock, breaker, agent: `agent-${randomUUID()}` };
}

async function failTimes(breaker: Breaker, agent: string, times: number) {
  const results = [];
  for (let index = 0; index < times; index++) results.push(await breaker.recordFailure(agent));
  return results;
}

describe.each(stores)("breaker (%s store)", (_name, makeStore) => {
  it("opens after 3 consecutive failures", async () => {
    const { breaker, agent, clock } = setup(makeStore);
    expect(await breaker.check(agent)).toEqual({ allowed: true, state: "closed" });
    const [first, second, third] = await failTimes(breaker, agent, 3);
    expect(first).toMatchObject({ opened: false, state: "closed", failures: 1 });
    expect(second).toMatchObject({ opened: false, state: "closed", failures: 2 });
    expect(third).toEqual({
      opened: true,
      state: "open",
      failures: 3,
      cooldownMs: 30 * SECOND,
      openUntil: clock.now + 30 * SECOND,
    });
    expect(await breaker.check(agent)).toEqual({
      allowed: false,
      state: "open",
      retryAt: clock.now + 30 * SECOND,
    });
  });

  it("a success before the threshold resets the count", async () => {
    const { breaker, agent } = setup(makeStore);
    await failTimes(breaker, agent, 2);
    expect(await breaker.recordSuccess(agent)).toEqual({ closed: false, failures: 2 });
    expect((await failTimes(breaker, agent, 2)).map((result) => result.opened)).toEqual([false, false]);
    expect((await breaker.state(agent)).failures).toBe(2);
  });

  it("doubles the cooldown on each failed half-open trial, capped at 30 minutes", async () => {
    const { breaker, agent, clock } = setup(makeStore);
    await failTimes(breaker, agent, 3);
    const cooldowns = [30 * SECOND];
    for (let round = 0; round < 8; round++) {
      clock.now += cooldowns.at(-1) as number;
      expect(await breaker.check(agent)).toEqual({ allowed: true, state: "half_open" });
      // Only one trial at a time.
      expect(await breaker.check(agent)).toMatchObject({ allowed: false, state: "half_open" });
      const failure = await breaker.recordFailure(agent);
      expect(failure.opened).toBe(true);
      expect(failure.openUntil).toBe(clock.now + failure.cooldownMs);
      cooldowns.push(failure.cooldownMs);
    }
    expect(cooldowns).toEqual([
      30 * SECOND,
      1 * MINUTE,
      2 * MINUTE,
      4 * MINUTE,
      8 * MINUTE,
      16 * MINUTE,
      30 * MINUTE,
      30 * MINUTE,
      30 * MINUTE,
    ]);
  });

  it("closes on a successful half-open trial and starts over at 30 s", async () => {
    const { breaker, agent, clock } = setup(makeStore);
    await failTimes(breaker, agent, 3);
    clock.now += 29 * SECOND;
    expect((await breaker.check(agent)).allowed).toBe(false);
    clock.now += SECOND;
    expect(await breaker.check(agent)).toEqual({ allowed: true, state: "half_open" });
    expect(await breaker.recordSuccess(agent)).toEqual({ closed: true, failures: 3 });
    expect(await breaker.state(agent)).toMatchObject({ state: "closed", failures: 0, level: 0 });
    const reopened = (await failTimes(breaker, agent, 3))[2];
    expect(reopened).toMatchObject({ opened: true, cooldownMs: 30 * SECOND });
  });

  it("lets a provider overflow bypass an open breaker once", async () => {
    const { breaker, agent, clock } = setup(makeStore);
    await failTimes(breaker, agent, 3);
    expect(await breaker.check(agent, { bypass: "overflow" })).toEqual({
      allowed: true,
      state: "open",
      bypassed: true,
    });
    // The same open period: a second bypass needs a fresh overflow.
    expect(await breaker.check(agent, { bypass: "overflow" })).toMatchObject({
      allowed: false,
      state: "open",
    });
    // The bypassed attempt failed: the cooldown continues unchanged.
    expect(await breaker.recordFailure(agent)).toMatchObject({
      opened: false,
      state: "open",
      openUntil: clock.now + 30 * SECOND,
    });
    // A distinct overflow (keyed by its request) may bypass once more, and only once.
    expect((await breaker.check(agent, { bypass: "overflow", overflowKey: "req-2" })).allowed).toBe(true);
    expect((await breaker.check(agent, { bypass: "overflow", overflowKey: "req-2" })).allowed).toBe(false);
  });

  it("peek answers like check without consuming the trial or the bypass", async () => {
    const { breaker, agent, clock } = setup(makeStore);
    await failTimes(breaker, agent, 3);
    expect(await breaker.peek(agent, { bypass: "overflow" })).toMatchObject({
      allowed: true,
      bypassed: true,
    });
    expect(await breaker.peek(agent)).toMatchObject({ allowed: false, state: "open" });
    clock.now += 30 * SECOND;
    expect(await breaker.peek(agent)).toEqual({ allowed: true, state: "half_open" });
    expect(await breaker.peek(agent)).toEqual({ allowed: true, state: "half_open" });
    expect(await breaker.check(agent)).toEqual({ allowed: true, state: "half_open" });
    expect((await breaker.peek(agent)).allowed).toBe(false);
  });

  it("frees a half-open trial that never reports back", async () => {
    const { breaker, agent, clock } = setup(makeStore);
    await failTimes(breaker, agent, 3);
    clock.now += 30 * SECOND;
    expect((await breaker.check(agent)).allowed).toBe(true);
    const blocked = await breaker.check(agent);
    expect(blocked).toEqual({ allowed: false, state: "half_open", retryAt: clock.now + 10 * MINUTE });
    clock.now += 10 * MINUTE;
    expect(await breaker.check(agent)).toEqual({ allowed: true, state: "half_open" });
  });
});

describe("breaker on shared Redis", () => {
  it("two breaker instances (two workers) see the same state", async () => {
    const clock = { now: 5_000_000 };
    const workerA = createBreaker({
      store: createRedisBreakerStore({ redis, prefix }),
      now: () => clock.now,
    });
    const other = new Redis("redis://127.0.0.1:6379");
    try {
      const workerB = createBreaker({
        store: createRedisBreakerStore({ redis: other, prefix }),
        now: () => clock.now,
      });
      const agent = `agent-${randomUUID()}`;
      await workerA.recordFailure(agent);
      await workerB.recordFailure(agent);
      const third = await workerA.recordFailure(agent);
      expect(third).toMatchObject({ opened: true, failures: 3 });
      expect(await workerB.check(agent)).toMatchObject({ allowed: false, state: "open" });
      clock.now += 30 * SECOND;
      // Exactly one worker wins the half-open trial.
      const trials = await Promise.all([workerA.check(agent), workerB.check(agent)]);
      expect(trials.filter((trial) => trial.allowed)).toHaveLength(1);
      expect(await workerB.recordSuccess(agent)).toEqual({ closed: true, failures: 3 });
      expect(await workerA.state(agent)).toMatchObject({ state: "closed", failures: 0 });
    } finally {
      await other.quit();
    }
  });

  it("concurrent failures from many workers are all counted", async () => {
    const breakers = Array.from({ length: 8 }, () =>
      createBreaker({ store: createRedisBreakerStore({ redis, prefix }), threshold: 100 }),
    );
    const agent = `agent-${randomUUID()}`;
    await Promise.all(
      breakers.flatMap((breaker) => Array.from({ length: 5 }, () => breaker.recordFailure(agent))),
    );
    expect((await breakers[0]?.state(agent))?.failures).toBe(40);
  });

  it("stores one JSON value per agent under the prefix", async () => {
    const breaker = createBreaker({ store: createRedisBreakerStore({ redis, prefix }) });
    const agent = `agent-${randomUUID()}`;
    await breaker.recordFailure(agent);
    const raw = await redis.get(`${prefix}${agent}`);
    expect(JSON.parse(raw ?? "null")).toMatchObject({ version: 1, state: "closed", failures: 1 });
    expect(await redis.pttl(`${prefix}${agent}`)).toBeGreaterThan(0);
    await breaker.reset(agent);
    expect(await redis.exists(`${prefix}${agent}`)).toBe(0);
  });
});
