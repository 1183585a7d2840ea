import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequestRate } from "@longrun/runtime";
import { openStore, type Store } from "@longrun/store";
import { Hono } from "hono";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type AuthEnv, bearerAuth } from "./auth.ts";
import { errorResponse } from "./http-error.ts";
import { createTokenCache, TOKEN_CACHE_TTL_MS } from "./token-cache.ts";

// The auth middleware over a real store (a libSQL file), its reads of api_keys counted by a spy on the
// store's own verify; the clock is injected, so expiry is checked at its exact edge without waiting.

let dir: string;
let store: Store;
let now: number;
let storeReads: ReturnType<typeof vi.spyOn>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "longrun-auth-"));
  store = await openStore({ url: join(dir, "longrun.db") });
  now = 1_000_000;
  storeReads = vi.spyOn(store.apiKeys, "verify");
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** An API with one route behind the auth middleware; tenant "flood" may send 1/s in bursts of 3. */
function api() {
  const clock = () => now;
  const tokens = createTokenCache((token) => store.apiKeys.verify(token), { now: clock });
  const rate = createRequestRate(
    (tenantId) =>
      tenantId === "flood"
        ? { requestsPerSecond: 1, requestBurst: 3 }
        : { requestsPerSecond: 50, requestBurst: 200 },
    clock,
  );
  const app = new Hono<AuthEnv>();
  app.onError((error, context) => errorResponse(error, context));
  app.use("/v1/*", bearerAuth(tokens, rate));
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
