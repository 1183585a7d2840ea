import type { ChatMessage } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgentContext } from "../context/agent-context.ts";
import { projectContext } from "../context/projection.ts";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** I1 on a request body: every tool_calls message is followed by exactly its results. */
function assertAdjacency(messages: ChatMessage[]) {
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index] as ChatMessage;
    if (message.role === "tool") {
      const owner = messages
        .slice(0, index)
        .reverse()
        .find((candidate) => candidate.role !== "tool");
      expect(owner?.tool_calls?.some((call) => call.id === message.tool_call_id)).toBe(true);
    }
    if (message.role === "assistant" && message.tool_calls?.length) {
      const results = messages.slice(index + 1, index + 1 + message.tool_calls.length);
      expect(results.map((result) => result.tool_call_id).sort()).toEqual(
        message.tool_calls.map((call) => call.id).sort(),
      );
    }
  }
}

describe("an agent run against the strict sim model", () => {
  it("runs a short task to completion and records every fact", async () => {
    harness = await createHarness({ simSteps: 6, maxInputTokens: 64_000 });
    const { runId, rootAgentId } = await harness.startThread("Survey the inventory project and report.");
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");
    const log = harness.sim.log.entries;
    expect(log.length).toBeGreaterThanOrEqual(6);
    expect(log.every((entry) => entry.status === 200)).toBe(true);
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    const assistants = facts.filter((fact) => fact.role === "assistant");
    expect(assistants.length).toBe(log.filter((entry) => !entry.summary).length);
    // every tool call answered exactly once
    const calls = assistants.flatMap((fact) => fact.toolCalls ?? []).map((call) => call.id);
    const results = facts.filter((fact) => fact.role === "tool").map((fact) => fact.toolCallId);
    expect(results.sort()).toEqual([...calls].sort());
    expect(harness.events.some((event) => event.type === "context.measured")).toBe(true);
  });

  it("300 steps in a 16k window: compacts several times, every request accepted, projection reads match requests", async () => {
    harness = await createHarness({ simSteps: 300, maxInputTokens: 16_000, manual: true });
    const { runId, rootAgentId } = await harness.startThread(
      "Explore the project for a long time and keep notes.",
    );
    let steps = 0;
    let mismatches = 0;
    for (let guard = 0; guard < 2_000; guard++) {
      const next = harness.pending[0];
      if (!next) break;
      if (next.name === "agent.step") {
        // What GET /v1/agents/:id/context would show right now…
        const context = await loadAgentContext(harness.deps, next.payload.agentId);
        const read = projectContext(harness.deps, context);
        const before = harness.sim.log.entries.length;
        await harness.runNext();
        const sent = harness.sim.log.entries.slice(before).find((entry) => !entry.summary);
        if (sent) steps++;
        // …is exactly what the step sent (a step that compacts first, or whose compaction the cost
        // model skipped as no progress, sends what it decided then).
        if (sent && !read.needsCompaction) {
          const body = sent.body as { messages: ChatMessage[] };
          if (JSON.stringify(body.messages) !== JSON.stringify(read.messages)) mismatches++;
        }
      } else {
        await harness.runNext();
      }
    }
    expect(mismatches).toBe(0);
    expect(steps).toBeGreaterThanOrEqual(300);
    // The run ended exactly once, and by completing: its last run.* event is its one run.completed.
    const ends = harness.events.filter((event) => event.runId === runId && event.type.startsWith("run."));
    expect(ends.map((event) => event.type).filter((type) => type === "run.completed")).toEqual([
      "run.completed",
    ]);
    expect(ends.at(-1)?.type).toBe("run.completed");
    const log = harness.sim.log.entries;
    expect(log.filter((entry) => entry.status !== 200)).toEqual([]);
    const compactions = await harness.store.compactions.list(rootAgentId);
    expect(compactions.length).toBeGreaterThanOrEqual(3);
    // facts hold every message ever produced
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    expect(facts.map((fact) => fact.seq)).toEqual(facts.map((_, index) => index));
    expect(facts.filter((fact) => fact.role === "assistant").length).toBe(steps);
    for (const entry of log) assertAdjacency((entry.body as { messages: ChatMessage[] }).messages);
  }, 240_000);
});
