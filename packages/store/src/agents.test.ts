import { Agent } from "@longrun/protocol";
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

describe("agents", () => {
  it("creates agents with defaults and reads them back", async () => {
    const root = await store.agents.create({ threadId: "th", name: "root" });
    expect(root).toMatchObject({
      parentAgentId: null,
      inherit: "fresh",
      forkMessageId: null,
      forkCompactionId: null,
      brief: null,
      spawnCallId: null,
      status: "idle",
      fence: 0,
    });
    expect(Agent.parse(root)).toMatchObject({ id: root.id, name: "root" });
    expect(await store.agents.get(root.id)).toEqual(root);
    expect(await store.agents.get("missing")).toBeNull();
  });

  it("walks children and ancestors (root first, excluding self)", async () => {
    const root = await store.agents.create({ threadId: "th", name: "root" });
    const child = await store.agents.create({
      threadId: "th",
      name: "child",
      parentAgentId: root.id,
      inherit: "fork",
      forkMessageId: "m-1",
      forkCompactionId: "c-1",
      brief: "look around",
      spawnCallId: "call-9",
    });
    const sibling = await store.agents.create({ threadId: "th", name: "sibling", parentAgentId: root.id });
    const grandchild = await store.agents.create({
      threadId: "th",
      name: "grandchild",
      parentAgentId: child.id,
    });
    await store.agents.create({ threadId: "other", name: "elsewhere" });

    expect(await store.agents.get(child.id)).toMatchObject({
      inherit: "fork",
      forkMessageId: "m-1",
      forkCompactionId: "c-1",
      brief: "look around",
      spawnCallId: "call-9",
    });
    expect((await store.agents.listByThread("th")).map((agent) => agent.name)).toEqual([
      "root",
      "child",
      "sibling",
      "grandchild",
    ]);
    expect((await store.agents.children(root.id)).map((agent) => agent.id)).toEqual([child.id, sibling.id]);
    expect(await store.agents.children(grandchild.id)).toEqual([]);
    expect((await store.agents.ancestors(grandchild.id)).map((agent) => agent.id)).toEqual([
      root.id,
      child.id,
    ]);
    expect(await store.agents.ancestors(root.id)).toEqual([]);
    expect(await store.agents.ancestors("missing")).toEqual([]);
  });

  it("sets status and rejects unknown agents", async () => {
    const agent = await store.agents.create({ threadId: "th", name: "a" });
    expect((await store.agents.setStatus(agent.id, "running")).status).toBe("running");
    expect((await store.agents.get(agent.id))?.status).toBe("running");
    await expect(store.agents.setStatus("missing", "failed")).rejects.toMatchObject({ code: "not_found" });
  });
});
