import type { LongrunClient } from "@longrun/client";
import type { LongrunEvent } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type EmbeddedTestInstance, startEmbeddedForTest } from "../e2e/support/embedded-instance.ts";

// Approval rules over HTTP: embedded longrun with its sim model, whose `approval` script runs
// `ls -la` at step 1 and `git status --short` at step 11 (run_command needs approval).

let longrun: EmbeddedTestInstance;
let client: LongrunClient;

beforeAll(async () => {
  longrun = await startEmbeddedForTest({ LONGRUN_LOG_LEVEL: "warn" });
  client = longrun.client;
});

afterAll(() => longrun?.close());

const runCommandEvents = (events: LongrunEvent[]) =>
  events.filter((event) => event.type === "approval.requested" || event.type === "approval.resolved");

/** A thread on the approval script, and its first run. */
async function approvalThread(simSteps: number) {
  const thread = await client.threads.create({ model: "sim", simSteps, simScript: "approval", task: "Look" });
  return { thread, runId: thread.runs[0]!.id, agentId: thread.agents[0]!.id };
}

/** Waits until the run ended or its agent is parked on an approval; returns the run's status. */
async function settled(threadId: string, runId: string): Promise<string> {
  return vi.waitFor(
    async () => {
      const detail = await client.threads.get(threadId);
      const status = detail.runs.find((run) => run.id === runId)?.status ?? "";
      expect(["completed", "waiting", "failed", "cancelled"]).toContain(status);
      return status;
    },
    { timeout: 60_000, interval: 50 },
  );
}

describe("approval rules", () => {
  it("an always-for-this-thread decision approves the next matching call, with an event naming its rule", async () => {
    const { thread, runId, agentId } = await approvalThread(12);
    expect(await settled(thread.id, runId)).toBe("waiting");
    const [first] = await client.approvals.pending();
    expect(first).toMatchObject({ threadId: thread.id, toolName: "run_command" });

    const decided = await client.approvals.resolve(agentId, first!.callId, {
      decision: "approve",
      rule: { scope: "thread", pattern: "git *" },
    });
    expect(decided.rule).toMatchObject({ scope: "thread", threadId: thread.id, pattern: "git *" });
    expect(await client.approvals.rules({ threadId: thread.id })).toEqual([decided.rule]);
    expect(await settled(thread.id, runId)).toBe("completed");

    const events = runCommandEvents(await client.threads.events(thread.id, { since: 0 }));
    // Asked once (ls -la), decided by the person; the git call decided by the rule, never asked.
    expect(events.map((event) => [event.type, event.data.callId === first!.callId])).toEqual([
      ["approval.requested", true],
      ["approval.resolved", true],
      ["approval.resolved", false],
    ]);
    expect(events[2]!.data).toMatchObject({
      decision: "approve",
      ruleId: decided.rule!.id,
      name: "run_command",
      arguments: expect.stringContaining("git status --short"),
    });
  });

  it("a tenant rule approves in every thread until it is revoked", async () => {
    const rule = await client.approvals.createRule({
      scope: "tenant",
      toolName: "run_command",
      pattern: "ls -la",
    });
    const covered = await approvalThread(2);
    expect(await settled(covered.thread.id, covered.runId)).toBe("completed");
    const resolved = runCommandEvents(await client.threads.events(covered.thread.id, { since: 0 }));
    expect(resolved.map((event) => event.type)).toEqual(["approval.resolved"]);
    expect(resolved[0]!.data).toMatchObject({ ruleId: rule.id, decision: "approve" });

    expect(await client.approvals.revokeRule(rule.id)).toMatchObject({ id: rule.id });
    expect((await client.approvals.rules()).map((live) => live.id)).not.toContain(rule.id);
    const asked = await approvalThread(2);
    expect(await settled(asked.thread.id, asked.runId)).toBe("waiting");
    expect(
      runCommandEvents(await client.threads.events(asked.thread.id, { since: 0 })).map((event) => event.type),
    ).toEqual(["approval.requested"]);
    // Revoked once; a second revocation finds no live rule.
    await expect(client.approvals.revokeRule(rule.id)).rejects.toMatchObject({ status: 404 });
    await client.runs.cancel(asked.runId);
  });

  it("refuses a rule with a denial, and leaves the call undecided", async () => {
    const { thread, runId, agentId } = await approvalThread(2);
    expect(await settled(thread.id, runId)).toBe("waiting");
    const pending = (await client.approvals.pending()).find((approval) => approval.threadId === thread.id)!;
    await expect(
      client.approvals.resolve(agentId, pending.callId, { decision: "deny", rule: { scope: "tenant" } }),
    ).rejects.toMatchObject({ status: 400 });
    expect((await client.approvals.pending()).map((approval) => approval.callId)).toContain(pending.callId);
    await client.runs.cancel(runId);
  });
});
