import type { NewEvent } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * Makes the event sink throw once when `match` sees an event: the worker "dies" right after the fact
 * behind the event committed (events of a fact are published after its transaction).
 */
function dieOnce(target: Harness, match: (event: NewEvent) => boolean) {
  const sink = target.deps.events;
  const emit = sink.emit.bind(sink);
  const publish = sink.publish.bind(sink);
  let died = false;
  const check = (event: NewEvent) => {
    if (!died && match(event)) {
      died = true;
      throw new Error("worker killed");
    }
  };
  sink.emit = async (event) => {
    const stored = await emit(event);
    check(event);
    return stored;
  };
  sink.publish = async (events) => {
    await publish(events);
    for (const event of events) check(event);
  };
}

describe("a step retried after its worker died", () => {
  it("never appends the model's answer twice and never calls the model again for it", async () => {
    harness = await createHarness({ simSteps: 3, maxInputTokens: 64_000, manual: true });
    const { rootAgentId } = await harness.startThread("Look at the project.");
    dieOnce(harness, (event) => event.type === "message.completed" && event.data.role === "assistant");
    const job = harness.pending[0];
    await expect(harness.runNext()).rejects.toThrow("worker killed");
    const requestsAfterCrash = harness.sim.log.entries.length;
    // The queue retries the same job (attempt 2).
    harness.pending.unshift(job!);
    await harness.runNext(2);
    expect(harness.sim.log.entries.length).toBe(requestsAfterCrash + 1);
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    const assistants = facts.filter((fact) => fact.role === "assistant");
    expect(assistants).toHaveLength(2);
    // The first answer's tool calls were each answered exactly once.
    const firstCalls = assistants[0]?.toolCalls?.map((call) => call.id) ?? [];
    for (const id of firstCalls) expect(facts.filter((fact) => fact.toolCallId === id)).toHaveLength(1);
  });

  it("answers a call that may have run as cancelled, never running it twice", async () => {
    harness = await createHarness({ simSteps: 3, maxInputTokens: 64_000, manual: true });
    const { rootAgentId } = await harness.startThread("Look at the project.");
    dieOnce(harness, (event) => event.type === "tool.started");
    const job = harness.pending[0];
    await expect(harness.runNext()).rejects.toThrow("worker killed");
    const started = harness.events.filter((event) => event.type === "tool.started");
    expect(started).toHaveLength(1);
    harness.pending.unshift(job!);
    await harness.runNext(2);
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    const callId = (started[0]?.data as { callId: string } | undefined)?.callId;
    const results = facts.filter((fact) => fact.toolCallId === callId);
    expect(results).toHaveLength(1);
    expect(results[0]?.toolStatus).toBe("cancelled");
    expect(String(results[0]?.content)).toMatch(/may or may not have taken effect/);
    expect(
      harness.events.filter(
        (event) => event.type === "tool.started" && (event.data as { callId: string }).callId === callId,
      ),
    ).toHaveLength(1);
  });
});

describe("bad tool calls and denials", () => {
  it("gives clear tool errors for traversal, symlink escape, bad arguments, and the agent continues", async () => {
    harness = await createHarness({ simSteps: 3, maxInputTokens: 64_000, manual: true });
    const { rootAgentId, threadId, runId } = await harness.startThread("Look at the project.");
    harness.pending.length = 0;
    const { symlink } = await import("node:fs/promises");
    await symlink("/etc", `${harness.workspace}/escape`);
    // As if the model had asked for these calls.
    await harness.store.messages.append(rootAgentId, {
      role: "assistant",
      content: null,
      toolCalls: [
        {
          id: "call_bad_1",
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: "../../etc/passwd" }) },
        },
        {
          id: "call_bad_2",
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: "escape/passwd" }) },
        },
        { id: "call_bad_3", type: "function", function: { name: "read_file", arguments: "{not json" } },
        {
          id: "call_bad_4",
          type: "function",
          function: {
            name: "edit_file",
            arguments: JSON.stringify({ path: "README.md", oldText: "absent text", newText: "x" }),
          },
        },
        {
          id: "call_bad_5",
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: 42 }) },
        },
      ],
    });
    await harness.deps.scheduler.step({ threadId, agentId: rootAgentId, runId });
    await harness.runNext();
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    const results = new Map(
      facts.filter((fact) => fact.role === "tool").map((fact) => [fact.toolCallId, fact]),
    );
    for (const id of ["call_bad_1", "call_bad_2", "call_bad_3", "call_bad_4", "call_bad_5"]) {
      expect(results.get(id)?.toolStatus, id).toBe("error");
    }
    expect(String(results.get("call_bad_1")?.content)).toMatch(/outside the workspace|escape/i);
    expect(String(results.get("call_bad_2")?.content)).toMatch(/outside the workspace|escape/i);
    expect(String(results.get("call_bad_3")?.content)).toMatch(/JSON/i);
    expect(String(results.get("call_bad_4")?.content)).toMatch(/not found|absent|does not contain/i);
    expect(String(results.get("call_bad_5")?.content)).toMatch(/path/);
    // The agent went on to its next model call in the same step.
    expect(facts.at(-1)?.role === "tool" || facts.at(-1)?.role === "assistant").toBe(true);
    expect(harness.sim.log.entries.length).toBeGreaterThanOrEqual(1);
  });

  it("parks on run_command until approved or denied; a denial is an error result and the agent continues", async () => {
    harness = await createHarness({ simSteps: 6, maxInputTokens: 64_000, script: "approval" });
    const { runId, rootAgentId } = await harness.startThread("Run the checks.");
    const requested = await harness.waitForEvent((event) => event.type === "approval.requested");
    const callId = (requested.data as { callId: string }).callId;
    await harness.waitForEvent(
      (event) =>
        event.type === "agent.status" && (event.data as { status: string }).status === "waiting_approval",
    );
    const agent = await harness.store.agents.get(rootAgentId);
    expect(agent?.status).toBe("waiting_approval");
    const state = await harness.store.agentState.get(rootAgentId);
    expect(state.pendingApprovals.map((approval) => approval.callId)).toEqual([callId]);
    await harness.runControl.resolveApproval({
      agentId: rootAgentId,
      callId,
      decision: "deny",
      reason: "not now",
    });
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");
    const result = (await harness.store.messages.list(rootAgentId, { afterSeq: -1 })).find(
      (fact) => fact.toolCallId === callId,
    );
    expect(result?.toolStatus).toBe("error");
    expect(String(result?.content)).toMatch(/denied/i);
  });
});
