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
    expect(await store.apiKeys.verify(one.token)).toEqual({
      tenantId: "tenant-1",
      keyId: one.id,
      admin: false,
    });
    expect(await store.apiKeys.verify(two.token)).toEqual({
      tenantId: "tenant-2",
      keyId: two.id,
      admin: false,
    });
    expect(await store.apiKeys.verify(`${one.token}x`)).toBeNull();
    expect(await store.apiKeys.verify("")).toBeNull();

    const rows = await store.db.all<{ token_hash: string }>("SELECT token_hash FROM api_keys");
    expect(rows.map((row) => row.token_hash)).not.toContain(one.token);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);

    expect(await store.apiKeys.revoke(one.id)).toBe(true);
    expect(await store.apiKeys.revoke(one.id)).toBe(false);
    expect(await store.apiKeys.verify(one.token)).toBeNull();
  });

  it("lists keys without their tokens and tells which of a set are still live", async () => {
    const one = await store.apiKeys.create("tenant-1");
    const two = await store.apiKeys.create("tenant-2", undefined, { admin: true });
    await store.apiKeys.revoke(one.id);
    const listed = await store.apiKeys.list();
    expect(listed.map((key) => [key.id, key.tenantId, key.admin, key.origin, key.hint])).toEqual([
      [one.id, "tenant-1", false, "created", one.token.slice(-4)],
      [two.id, "tenant-2", true, "created", two.token.slice(-4)],
    ]);
    expect(listed[0]?.revokedAt).toEqual(expect.any(Number));
    expect(listed[1]?.revokedAt).toBeNull();
    expect(JSON.stringify(listed)).not.toContain(two.token);
    expect(await store.apiKeys.active([one.id, two.id, "nope"])).toEqual(new Set([two.id]));
    expect(await store.apiKeys.active([])).toEqual(new Set());
  });

  it("adopts LONGRUN_TOKEN as an admin key and revokes the previous one when it changes", async () => {
    const other = await store.apiKeys.create("tenant-2");
    const first = await store.apiKeys.adopt("default", "first-env-token-0123", "env");
    expect(first).toEqual({ id: expect.any(String), replaced: [] });
    // A restart with the same token keeps the same key.
    expect(await store.apiKeys.adopt("default", "first-env-token-0123", "env")).toEqual(first);
    expect(await store.apiKeys.verify("first-env-token-0123")).toMatchObject({
      tenantId: "default",
      admin: true,
    });

    const second = await store.apiKeys.adopt("default", "second-env-token-456", "env");
    expect(second).toEqual({ id: expect.any(String), replaced: ["id" in first ? first.id : ""] });
    expect(await store.apiKeys.verify("first-env-token-0123")).toBeNull();
    expect(await store.apiKeys.verify("second-env-token-456")).toMatchObject({ admin: true });
    // Keys of other origins are left alone.
    expect(await store.apiKeys.verify(other.token)).toMatchObject({ tenantId: "tenant-2" });
    // A revoked token stays revoked: going back to it does not bring it back.
    expect(await store.apiKeys.adopt("default", "first-env-token-0123", "env")).toEqual({
      revoked: "id" in first ? first.id : "",
    });
    expect(await store.apiKeys.verify("first-env-token-0123")).toBeNull();
  });
});
