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

/** A thread of `tenantId` with one agent, and an approval request of that agent per call id. */
async function approvalsOf(tenantId: string, callIds: string[]) {
  const thread = await store.threads.create({
    tenantId,
    title: tenantId,
    workspaceDir: `/w/${tenantId}`,
    modelProfile: testProfile,
  });
  const agent = await store.agents.create({ threadId: thread.id, name: "root" });
  for (const callId of callIds)
    await store.approvals.request({
      agentId: agent.id,
      callId,
      threadId: thread.id,
      messageId: `m-${callId}`,
      toolName: "run_command",
      arguments: "{}",
    });
  return agent;
}

describe("approvals of a tenant", () => {
  it("lists a tenant's own, oldest first, filtered by pending and call id, up to the limit", async () => {
    const mine = await approvalsOf("t1", ["c1", "c2", "c3"]);
    await approvalsOf("t2", ["c1"]);
    await store.approvals.decide({ agentId: mine.id, callId: "c2", decision: "deny" });

    const all = await store.approvals.forTenant("t1");
    expect(all.map((approval) => approval.callId)).toEqual(["c1", "c2", "c3"]);
    expect(all[1]).toMatchObject({ decision: "deny", reason: null, decidedAt: expect.any(Number) });
    expect(all[0]).toMatchObject({ agentId: mine.id, decision: null, reason: null, decidedAt: null });
    const pending = await store.approvals.forTenant("t1", { pending: true });
    expect(pending.map((approval) => approval.callId)).toEqual(["c1", "c3"]);
    expect(await store.approvals.forTenant("t1", { callId: "c3" })).toHaveLength(1);
    expect(await store.approvals.forTenant("t1", { pending: true, callId: "c2" })).toEqual([]);
    expect(await store.approvals.forTenant("t1", { limit: 2 })).toHaveLength(2);
    expect((await store.approvals.forTenant("t2")).map((approval) => approval.callId)).toEqual(["c1"]);
    expect(await store.approvals.forTenant("nobody")).toEqual([]);
  });
});
