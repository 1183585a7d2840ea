import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** The worker "dies" right after the model's answer is stored: the log moved on, the job did not finish. */
function dieAfterAnswer(target: Harness) {
  const sink = target.deps.events;
  const publish = sink.publish.bind(sink);
  let died = false;
  sink.publish = async (events) => {
    await publish(events);
    const answer = events.some(
      (event) => event.type === "message.completed" && event.data.role === "assistant",
    );
    if (!died && answer) {
      died = true;
      throw new Error("worker killed");
    }
  };
}

describe("a step job handed out again after its worker died (BullMQ stall: still attempt 1)", () => {
  it("runs when redelivered, finishing the dead run's tool calls, though the log moved past expectSeq", async () => {
    harness = await createHarness({ simSteps: 3, maxInputTokens: 64_000, manual: true });
    const { rootAgentId } = await harness.startThread("Look at the project.");
    dieAfterAnswer(harness);
    const job = harness.pending.shift();
    if (job?.name !== "agent.step") throw new Error("expected a step job");
    const signal = new AbortController().signal;
    await expect(harness.runner.step(job.payload, { attempt: 1, signal })).rejects.toThrow("worker killed");

    // Not redelivered, the same payload is a stale duplicate…
    expect(await harness.runner.step(job.payload, { attempt: 1, signal })).toEqual({ skipped: "stale step" });
    // …redelivered, it is the interrupted step itself and must finish it.
    const result = await harness.runner.step(job.payload, { attempt: 1, redelivered: true, signal });
    expect(result).not.toHaveProperty("skipped");
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    const calls = facts.flatMap((fact) => fact.toolCalls ?? []).map((call) => call.id);
    const results = facts.filter((fact) => fact.role === "tool").map((fact) => fact.toolCallId);
    expect(calls.length).toBeGreaterThan(0);
    expect([...results].sort()).toEqual([...calls].sort());
  });
});

describe("the first step of a run queued behind one cancelled mid-step", () => {
  it("runs though the cancelled step wrote to the log after it was scheduled (not a stale duplicate)", async () => {
    harness = await createHarness({ simSteps: 10, maxInputTokens: 64_000, manual: true });
    const { threadId, rootAgentId, runId } = await harness.startThread("Look at the project.");
    const next = await harness.runControl.admitMessage({ threadId, content: "Then this." });
    expect(next.queued).toBe(true);
    // Cancelled while its step is in flight: the next run starts, its first step scheduled at the log's end…
    await harness.runControl.cancel(runId);
    const first = harness.pending.find(
      (job) => job.name === "agent.step" && job.payload.runId === next.runId,
    );
    if (!first) throw new Error("expected the next run's first step");
    // …then the cancelled step, finishing a tool call the abort did not stop, records its result.
    const call = {
      id: "call_late",
      type: "function" as const,
      function: { name: "list_files", arguments: "{}" },
    };
    await harness.store.messages.append(rootAgentId, { role: "assistant", content: null, toolCalls: [call] });
    await harness.store.messages.append(rootAgentId, { role: "tool", toolCallId: call.id, content: "a.txt" });
    const signal = new AbortController().signal;
    const result = await harness.runner.step(first.payload, { attempt: 1, signal });
    expect(result).not.toHaveProperty("skipped");
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    // The step answered after the late result: a model call was made for this run.
    const late = facts.findIndex((fact) => fact.toolCallId === "call_late");
    expect(facts.slice(late + 1).some((fact) => fact.role === "assistant")).toBe(true);
    // Once the agent took that step it is no longer `queued`: the same payload again is a duplicate.
    expect(await harness.runner.step(first.payload, { attempt: 1, signal })).toHaveProperty("skipped");
  });
});
