import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequestRate, createTarpit } from "@longrun/runtime";
import { openStore, type Store } from "@longrun/store";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AuthEnv, bearerAuth } from "./auth.ts";
import { errorResponse } from "./http-error.ts";
import { createTokenCache, TOKEN_CACHE_TTL_MS } from "./token-cache.ts";

// The auth middleware over a real store (a libSQL file), its reads of api_keys counted by a spy on the
// store's own verify; the clock is injected, so expiry is checked at its exact edge without waiting, and
// so is the tarpit's timer: a hold ends when the test says, and each hold's length is recorded.

let dir: string;
let store: Store;
let now: number;
let storeReads: ReturnType<typeof vi.spyOn>;
/** The tarpit's holds, in ms, in the order they began. */
let holds: number[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "longrun-auth-"));
  store = await openStore({ url: join(dir, "longrun.db") });
  now = 1_000_000;
  storeReads = vi.spyOn(store.apiKeys, "verify");
  holds = [];
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * An API with one route behind the auth middleware; tenant "flood" may send 1/s in bursts of 3, tenant
 * "fast" 10/s in bursts of 1. The tarpit's holds end at once unless `release` is given: then each ends
 * when the promise it returns for that hold resolves.
 */
function api(options: { release?: () => Promise<void>; maxHeldPerTenant?: number } = {}) {
  const clock = () => now;
  const tokens = createTokenCache((token) => store.apiKeys.verify(token), { now: clock });
  const limits = (tenantId: string) =>
    tenantId === "flood"
      ? { requestsPerSecond: 1, requestBurst: 3 }
      : tenantId === "fast"
        ? { requestsPerSecond: 10, requestBurst: 1 }
        : { requestsPerSecond: 50, requestBurst: 200 };
  const rate = createRequestRate(limits, clock);
  const tarpit = createTarpit(limits, {
    ...(options.maxHeldPerTenant ? { maxHeldPerTenant: options.maxHeldPerTenant } : {}),
    sleep: (ms) => {
      holds.push(ms);
      return options.release?.() ?? Promise.resolve();
    },
  });
  const app = new Hono<AuthEnv>();
  app.onError((error, context) => errorResponse(error, context));
  app.use("/v1/*", bearerAuth(tokens, rate, tarpit));
  app.get("/v1/whoami", (context) => context.json({ tenantId: context.get("tenantId") }));
  return async (token: string) => {
    const response = await app.request("/v1/whoami", { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { tenantId?: string; error?: { code: string } };
    return { status: response.status, retryAfter: response.headers.get("retry-after"), body };
  };
}

describe("bearer auth with the request rate", () => {
  it("refuses a tenant over its rate from memory: its 429s read nothing from the store", async () => {
    const { token } = await store.apiKeys.create("flood");
    const call = api();
    for (let request = 0; request < 3; request += 1) expect((await call(token)).status).toBe(200);
    // Served requests are verified against the store, each one.
    expect(storeReads).toHaveBeenCalledTimes(3);

    const refused = await Promise.all(Array.from({ length: 20 }, () => call(token)));
    expect(refused.map((answer) => answer.status)).toEqual(Array(20).fill(429));
    expect(refused[0]?.body.error?.code).toBe("rate_limited");
    expect(refused[0]?.retryAfter).toBe("1");
    expect(storeReads).toHaveBeenCalledTimes(3);

    // A second later the bucket holds one request again: served, and verified.
    now += 1_000;
    expect((await call(token)).status).toBe(200);
    expect(storeReads).toHaveBeenCalledTimes(4);
  });

  it("keeps tenants apart: another tenant's token is served while one is refused", async () => {
    const flood = (await store.apiKeys.create("flood")).token;
    const quiet = (await store.apiKeys.create("quiet")).token;
    const call = api();
    for (let request = 0; request < 3; request += 1) await call(flood);
    expect((await call(flood)).status).toBe(429);
    expect(await call(quiet)).toMatchObject({ status: 200, body: { tenantId: "quiet" } });
  });

  it("refuses a revoked token at once on a request that would be served", async () => {
    const { id, token } = await store.apiKeys.create("quiet");
    const call = api();
    expect((await call(token)).status).toBe(200);
    await store.apiKeys.revoke(id);
    expect((await call(token)).status).toBe(401);
  });

  it("answers a revoked token over its rate 429 until the cached answer expires, then 401 from the store", async () => {
    const { id, token } = await store.apiKeys.create("flood");
    const call = api();
    for (let request = 0; request < 3; request += 1) expect((await call(token)).status).toBe(200);
    await store.apiKeys.revoke(id);
    // Within the expiry the refusal is decided from memory (the store still says nothing).
    expect((await call(token)).status).toBe(429);
    now += TOKEN_CACHE_TTL_MS - 1;
    expect((await call(token)).status).toBe(429);
    const readsBefore = storeReads.mock.calls.length;
    // At the expiry the store is asked again and the revocation is seen.
    now += 1;
    expect((await call(token)).status).toBe(401);
    expect(storeReads).toHaveBeenCalledTimes(readsBefore + 1);
    // The refusal itself is remembered: the next 401s read nothing until it expires in turn.
    expect((await call(token)).status).toBe(401);
    expect(storeReads).toHaveBeenCalledTimes(readsBefore + 1);
  });

  it("remembers an unknown token's refusal for the expiry only", async () => {
    const call = api();
    expect((await call("lr_not-a-token-of-anyone")).status).toBe(401);
    expect((await call("lr_not-a-token-of-anyone")).status).toBe(401);
    expect(storeReads).toHaveBeenCalledTimes(1);
    now += TOKEN_CACHE_TTL_MS;
    expect((await call("lr_not-a-token-of-anyone")).status).toBe(401);
    expect(storeReads).toHaveBeenCalledTimes(2);
  });
});

/** A promise and its resolve, to end one hold of the tarpit when the test says. */
function deferred() {
  let resolve = () => {};
  const promise = new Promise<void>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

describe("the tarpit: refusals for the rate are held before they are answered", () => {
  it("answers an over-rate request 429 with Retry-After only when its hold ends, one bucket refill later", async () => {
    const { token } = await store.apiKeys.create("fast");
    const ends: Array<() => void> = [];
    const call = api({
      release: () => {
        const hold = deferred();
        ends.push(hold.resolve);
        return hold.promise;
      },
    });
    expect((await call(token)).status).toBe(200);
    let answered = false;
    const refused = call(token).then((answer) => {
      answered = true;
      return answer;
    });
    await vi.waitFor(() => expect(holds).toHaveLength(1));
    // 10 a second, the bucket empty: its next token is 100 ms away.
    expect(holds[0]).toBe(100);
    // The hold is a timer, not an answer: nothing is written until it ends.
    await Promise.resolve();
    expect(answered).toBe(false);
    ends[0]?.();
    const answer = await refused;
    expect(answer.status).toBe(429);
    expect(answer.body.error?.code).toBe("rate_limited");
    expect(answer.retryAfter).toBe("1");
    expect(storeReads).toHaveBeenCalledTimes(1);
  });

  it("spaces a tenant's held refusals one refill apart, at most a second, and holds at most its bound", async () => {
    const { token } = await store.apiKeys.create("fast");
    const quiet = (await store.apiKeys.create("quiet")).token;
    const ends: Array<() => void> = [];
    const call = api({
      maxHeldPerTenant: 12,
      release: () => {
        const hold = deferred();
        ends.push(hold.resolve);
        return hold.promise;
      },
    });
    expect((await call(token)).status).toBe(200);
    const held = Array.from({ length: 12 }, () => call(token));
    await vi.waitFor(() => expect(holds).toHaveLength(12));
    // The n-th held at once waits for its bucket's next token and one refill (100 ms) per refusal before it.
    expect(holds).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1000, 1000]);
    // Past the bound, a refusal is answered at once: no hold, no socket kept.
    const past = await Promise.all(Array.from({ length: 5 }, () => call(token)));
    expect(past.map((answer) => answer.status)).toEqual(Array(5).fill(429));
    expect(past.every((answer) => answer.retryAfter === "1")).toBe(true);
    expect(holds).toHaveLength(12);
    // Another tenant is served meanwhile.
    expect(await call(quiet)).toMatchObject({ status: 200, body: { tenantId: "quiet" } });
    for (const end of ends) end();
    const answers = await Promise.all(held);
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(429));
    // Every hold ended: the next refusal is held again, first in line.
    const next = call(token);
    await vi.waitFor(() => expect(holds).toHaveLength(13));
    expect(holds[12]).toBe(100);
    ends[12]?.();
    expect((await next).status).toBe(429);
  });
});
