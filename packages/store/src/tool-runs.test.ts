import { afterEach, describe, expect, it } from "vitest";
import { tempStore } from "./__fixtures__/temp-store.ts";

type TempStore = Awaited<ReturnType<typeof tempStore>>;

let temp: TempStore | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

const request = (agentId: string, callId: string) => ({
  agentId,
  callId,
  threadId: `thread-of-${agentId}`,
  messageId: `m-${agentId}`,
  toolName: "run_command",
  arguments: '{"command":"ls"}',
});

describe("tool runs and approvals, scoped by agent", () => {
  it("records a call as started once; a second start reports it was already started", async () => {
    temp = await tempStore();
    const { store } = temp;
    expect(await store.toolRuns.start({ agentId: "a", callId: "c1", name: "read_file" })).toBe(true);
    expect(await store.toolRuns.start({ agentId: "a", callId: "c1", name: "read_file" })).toBe(false);
    expect(await store.toolRuns.get("a", "c1")).toMatchObject({ agentId: "a", name: "read_file" });
  });

  it("keeps the same call id of two agents apart (providers do not promise unique ids)", async () => {
    temp = await tempStore();
    const { store } = temp;
    expect(await store.toolRuns.start({ agentId: "a", callId: "call_0", name: "read_file" })).toBe(true);
    // Another agent's first call with the same id is a first run, not an interrupted one.
    expect(await store.toolRuns.start({ agentId: "b", callId: "call_0", name: "read_file" })).toBe(true);
    expect(await store.toolRuns.get("b", "call_0")).toMatchObject({ agentId: "b", callId: "call_0" });

    await store.approvals.request(request("a", "call_1"));
    await store.approvals.request(request("b", "call_1"));
    const decided = await store.approvals.decide({ agentId: "b", callId: "call_1", decision: "deny" });
    expect(decided).toMatchObject({ ok: true, approval: { agentId: "b", decision: "deny" } });
    // Deciding b's call left a's untouched.
    expect((await store.approvals.get("a", "call_1"))?.decision).toBeNull();
  });

  it("takes a decision exactly once, however many deciders race", async () => {
    temp = await tempStore();
    const { store } = temp;
    const { created } = await store.approvals.request(request("a", "c9"));
    expect(created).toBe(true);
    // A repeated request (a retried step) finds the same row.
    expect((await store.approvals.request(request("a", "c9"))).created).toBe(false);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        store.approvals.decide({
          agentId: "a",
          callId: "c9",
          decision: index % 2 === 0 ? "approve" : "deny",
          reason: `decider ${index}`,
        }),
      ),
    );
    const winners = results.filter((result) => result.ok);
    expect(winners).toHaveLength(1);
    const stored = await store.approvals.get("a", "c9");
    expect(stored?.decision).toBe(winners[0]?.ok ? winners[0].approval.decision : "none");
    for (const loser of results.filter((result) => !result.ok)) {
      expect(loser).toMatchObject({ ok: false, reason: "already_decided", approval: stored });
    }
    // The decision stays after it was used: a step retried after a crash finds it again.
    expect((await store.approvals.request(request("a", "c9"))).approval.decision).toBe(stored?.decision);
    expect(await store.approvals.decide({ agentId: "zz", callId: "c9", decision: "approve" })).toEqual({
      ok: false,
      reason: "not_found",
    });
  });

  it("registers a given token for a tenant", async () => {
    temp = await tempStore();
    const { store } = temp;
    await store.apiKeys.create("tenant-x", "lr_fixed-token-for-tests");
    expect(await store.apiKeys.verify("lr_fixed-token-for-tests")).toMatchObject({ tenantId: "tenant-x" });
  });
});
