import type { EventOf } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface LoggedBody {
  messages: { role: string; content: unknown }[];
  tools?: { function: { name: string } }[];
  tool_choice?: string;
  max_completion_tokens?: number;
}

describe("a compaction's summary call", () => {
  it("continues the agent's own request: its system prompt, tools and messages, the instruction last", async () => {
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000 });
    const { runId } = await harness.startThread("Survey the inventory project and keep notes.");
    await harness.waitForRunEnd(runId);

    const entries = harness.sim.log.entries;
    const summaryAt = entries.findIndex((entry) => entry.summary);
    expect(summaryAt).toBeGreaterThan(0);
    const summary = entries[summaryAt];
    const agentCall = entries[summaryAt - 1];
    // The sim saw it as a summary, answered within the budget and served its prefix from its cache.
    expect(summary).toMatchObject({ status: 200, toolCalls: 0, finishReason: "stop" });
    const body = summary?.body as LoggedBody;
    const agentBody = agentCall?.body as LoggedBody;
    expect(agentCall?.summary).toBe(false);
    // The agent's system prompt and tools, as the agent's last request sent them; tools cannot be called.
    expect(body.messages[0]).toEqual(agentBody.messages[0]);
    expect(body.messages[0]?.role).toBe("system");
    expect(body.tools?.map((tool) => tool.function.name)).toEqual(
      agentBody.tools?.map((tool) => tool.function.name),
    );
    expect(body.tools).toEqual(agentBody.tools);
    expect(body.tool_choice).toBe("none");
    // The agent's last request is a prefix of it, byte for byte, and the instruction comes last.
    expect(JSON.stringify(body.messages.slice(0, agentBody.messages.length))).toBe(
      JSON.stringify(agentBody.messages),
    );
    const instruction = body.messages.at(-1);
    expect(instruction?.role).toBe("user");
    expect(String(instruction?.content)).toMatch(/^\[Context compaction\]/);
    expect(String(instruction?.content)).toMatch(/The newest \d+ messages? above will be kept verbatim/);
    expect(summary?.cachedTokens).toBeGreaterThan(0);
    expect(summary?.completionTokens).toBeLessThanOrEqual(body.max_completion_tokens ?? 0);

    // The compaction events say why it ran and which form the summary call took.
    const started = harness.events.find(
      (event): event is EventOf<"compaction.started"> => event.type === "compaction.started",
    );
    expect(started?.data.reason).toMatch(/^(must|cheaper)$/);
    expect(typeof started?.data.expectedSaving).toBe("number");
    const completed = harness.events.find(
      (event): event is EventOf<"compaction.completed"> => event.type === "compaction.completed",
    );
    expect(completed?.data).toMatchObject({ summaryForm: "continuation", reason: started?.data.reason });
    // Never two compactions in a row: a model call of the agent comes between any two summary calls.
    const kinds = entries.map((entry) => (entry.summary ? "summary" : "agent")).join(" ");
    expect(kinds).not.toContain("summary summary");
  });
});
