import { afterEach, describe, expect, it } from "vitest";
import { tempStore } from "./__fixtures__/temp-store.ts";

type TempStore = Awaited<ReturnType<typeof tempStore>>;

let temp: TempStore | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

describe("tool runs and pending approvals", () => {
  it("records a call as started once; a second start reports it was already started", async () => {
    temp = await tempStore();
    const { store } = temp;
    expect(await store.toolRuns.start({ agentId: "a", callId: "c1", name: "read_file" })).toBe(true);
    expect(await store.toolRuns.start({ agentId: "a", callId: "c1", name: "read_file" })).toBe(false);
    expect((await store.toolRuns.get("c1"))?.finishedAt).toBeNull();
    await store.toolRuns.finish("c1");
    expect((await store.toolRuns.get("c1"))?.finishedAt).toEqual(expect.any(Number));
  });

  it("finds the agent that has a call among its pending approvals", async () => {
    temp = await tempStore();
    const { store } = temp;
    await store.agentState.update("agent-1", {
      pendingApprovals: [
        { callId: "call-9", messageId: "m", toolName: "run_command", arguments: "{}", requestedAt: 1 },
      ],
    });
    expect(await store.agentState.findByPendingCall("call-9")).toBe("agent-1");
    expect(await store.agentState.findByPendingCall("call-10")).toBeNull();
  });

  it("registers a given token for a tenant", async () => {
    temp = await tempStore();
    const { store } = temp;
    await store.apiKeys.create("tenant-x", "lr_fixed-token-for-tests");
    expect(await store.apiKeys.verify("lr_fixed-token-for-tests")).toMatchObject({ tenantId: "tenant-x" });
  });
});
