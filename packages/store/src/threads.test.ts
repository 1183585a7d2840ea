import { Thread } from "@longrun/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testProfile } from "./__fixtures__/profile.ts";
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

describe("threads", () => {
  it("creates, reads, lists per tenant and updates", async () => {
    const first = await store.threads.create({
      tenantId: "t1",
      title: "first",
      workspaceDir: "/w/1",
      modelProfile: testProfile,
    });
    expect(Thread.parse(first)).toEqual(first);
    expect(first.status).toBe("idle");
    const second = await store.threads.create({
      tenantId: "t1",
      title: "second",
      workspaceDir: "/w/2",
      modelProfile: { ...testProfile, maxInputTokens: 4096 },
    });
    await store.threads.create({
      tenantId: "t2",
      title: "other",
      workspaceDir: "/w/3",
      modelProfile: testProfile,
    });

    expect(await store.threads.get(first.id)).toEqual(first);
    expect(await store.threads.get("missing")).toBeNull();
    expect((await store.threads.list("t1")).map((thread) => thread.id)).toEqual([second.id, first.id]);
    expect(await store.threads.list("t1", { limit: 1 })).toHaveLength(1);
    expect((await store.threads.get(second.id))?.modelProfile.maxInputTokens).toBe(4096);

    const renamed = await store.threads.update(first.id, { title: "renamed" });
    expect(renamed.title).toBe("renamed");
    expect(renamed.updatedAt).toBeGreaterThanOrEqual(first.updatedAt);
    const running = await store.threads.setStatus(first.id, "running");
    expect(running).toMatchObject({ title: "renamed", status: "running" });
    expect(await store.threads.get(first.id)).toEqual(running);
    await expect(store.threads.update("missing", { title: "x" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("names the tenants sharing a workspace folder: the same folder, one inside it, one around it", async () => {
    for (const [tenantId, workspaceDir] of [
      ["a", "/roots/r1/project"],
      ["b", "/roots/r1/project/sub"],
      ["c", "/roots/r1/other"],
      ["d", "/roots/r1/project_x"],
      ["e", "/roots/r1/pro%"],
    ] as const)
      await store.threads.create({ tenantId, title: tenantId, workspaceDir, modelProfile: testProfile });
    expect((await store.threads.workspaceTenants("/roots/r1/project")).sort()).toEqual(["a", "b"]);
    expect((await store.threads.workspaceTenants("/roots/r1/project/sub/deeper")).sort()).toEqual(["a", "b"]);
    expect((await store.threads.workspaceTenants("/roots/r1")).sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(await store.threads.workspaceTenants("/roots/r1/pro")).toEqual([]);
    expect(await store.threads.workspaceTenants("/roots/r2")).toEqual([]);
  });
});
