import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempStore } from "./__fixtures__/temp-store.ts";
import type { Store } from "./open-store.ts";

let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
});
afterEach(async () => {
  await cleanup();
});

describe("api keys", () => {
  it("issues tokens that verify to their tenant and stores only a hash", async () => {
    const one = await store.apiKeys.create("tenant-1");
    const two = await store.apiKeys.create("tenant-2");
    expect(one.token).not.toBe(two.token);
    expect(one.token.length).toBeGreaterThanOrEqual(43);
    expect(await store.apiKeys.verify(one.token)).toEqual({ tenantId: "tenant-1", keyId: one.id });
    expect(await store.apiKeys.verify(two.token)).toEqual({ tenantId: "tenant-2", keyId: two.id });
    expect(await store.apiKeys.verify(`${one.token}x`)).toBeNull();
    expect(await store.apiKeys.verify("")).toBeNull();

    const rows = await store.db.all<{ token_hash: string }>("SELECT token_hash FROM api_keys");
    expect(rows.map((row) => row.token_hash)).not.toContain(one.token);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);

    expect(await store.apiKeys.revoke(one.id)).toBe(true);
    expect(await store.apiKeys.revoke(one.id)).toBe(false);
    expect(await store.apiKeys.verify(one.token)).toBeNull();
  });
});
