import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@longrun/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTokenCache } from "./token-cache.ts";

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "longrun-token-cache-"));
  store = await openStore({ url: join(dir, "longrun.db") });
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe("token cache", () => {
  it("holds the store's answer until its expiry, counted from when the store was asked", async () => {
    const { token } = await store.apiKeys.create("tenant-1");
    let now = 0;
    const cache = createTokenCache((candidate) => store.apiKeys.verify(candidate), {
      ttlMs: 500,
      now: () => now,
    });
    expect(cache.recent(token)).toBeUndefined();
    expect(await cache.verify(token)).toMatchObject({ tenantId: "tenant-1" });
    now = 499;
    expect(cache.recent(token)).toMatchObject({ tenantId: "tenant-1" });
    now = 500;
    expect(cache.recent(token)).toBeUndefined();
  });

  it("keeps at most maxTokens, dropping the longest unverified first: made-up tokens cannot grow it", async () => {
    const { token } = await store.apiKeys.create("tenant-1");
    const cache = createTokenCache((candidate) => store.apiKeys.verify(candidate), {
      maxTokens: 3,
      now: () => 0,
    });
    await cache.verify(token);
    for (let index = 0; index < 3; index += 1) await cache.verify(`lr_made-up-${index}`);
    expect(cache.recent(token)).toBeUndefined();
    expect(cache.recent("lr_made-up-0")).toBeNull();
    expect(cache.recent("lr_made-up-2")).toBeNull();
  });
});
