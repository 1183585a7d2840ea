import { AgentState } from "@longrun/protocol";
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

describe("agent state", () => {
  it("starts empty and merges patches", async () => {
    expect(await store.agentState.get("a")).toEqual({
      agentId: "a",
      plan: null,
      todos: [],
      recentFiles: [],
      pendingApprovals: [],
      updatedAt: 0,
    });
    await store.agentState.update("a", { plan: "1. read 2. write" });
    const next = await store.agentState.update("a", {
      todos: [{ content: "read", status: "completed" }],
      recentFiles: [{ path: "src/a.ts", readAt: 3 }],
    });
    expect(next.plan).toBe("1. read 2. write");
    expect(next.updatedAt).toBeGreaterThan(0);
    const stored = await store.agentState.get("a");
    expect(stored).toEqual(next);
    expect(AgentState.parse(stored)).toEqual(stored);
    // Pending approvals come from the approvals table, undecided ones only.
    await store.approvals.request({
      agentId: "a",
      callId: "c",
      threadId: "t",
      messageId: "m",
      toolName: "write_file",
      arguments: "{}",
    });
    expect((await store.agentState.get("a")).pendingApprovals).toMatchObject([
      { callId: "c", messageId: "m" },
    ]);
    await store.approvals.decide({ agentId: "a", callId: "c", decision: "approve" });
    expect((await store.agentState.get("a")).pendingApprovals).toEqual([]);
    expect((await store.agentState.get("b")).todos).toEqual([]);
  });

  it("serializes concurrent read-modify-write patches", async () => {
    await Promise.all([
      store.agentState.update("a", { plan: "p" }),
      store.agentState.update("a", { todos: [{ content: "t", status: "pending" }] }),
    ]);
    const state = await store.agentState.get("a");
    expect(state.plan).toBe("p");
    expect(state.todos).toHaveLength(1);
  });
});
