import type { ChatMessage, StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { summaryBudgetTokens } from "./compaction-budget.ts";
import { planCompaction } from "./plan-compaction.ts";
import { type Projection, type ProjectionInput, project } from "./project.ts";
import { callPoints, factLog, inputAt, type Scenario } from "./stable.test-helper.ts";
import type { ProjectionMemo } from "./stable.ts";
import { buildContinuationRequest, keptStandIn } from "./summary-continuation.ts";
import { createTokenizer, estimateMessageTokens, type ToolSpec } from "./tokenizer.ts";

const tools: ToolSpec[] = [
  { type: "function", function: { name: "read_file", parameters: { type: "object" } } },
  { type: "function", function: { name: "write_file", parameters: { type: "object" } } },
];

/** A task, then reads and writes of files with sizeable results, as an agent session grows. */
function session(steps: number, reasoning = false): StoredMessage[] {
  const { facts, add, call } = factLog();
  add({ role: "user", content: "Refactor the inventory module and keep notes." });
  for (let step = 0; step < steps; step++) {
    if (reasoning) {
      add({
        role: "assistant",
        content: `Looking at part ${step}.`,
        providerState: { reasoningDetails: [{ type: "reasoning.encrypted", data: `ZW5j${step}` }] },
      });
      add({ role: "user", content: `Go on with part ${step}.` });
    }
    call(
      `r${step}`,
      "read_file",
      { path: `src/part${step}.ts` },
      `export const part${step} = 1;\n`.repeat(40),
    );
    call(`w${step}`, "write_file", { path: `src/part${step}.ts`, content: "x" }, "written");
  }
  return facts;
}

/** Walks to the first call point that asks for LLM compaction: the input there and the previous request. */
function firstCompactionPoint(scenario: Scenario): {
  input: ProjectionInput;
  before: Projection;
  sent: Projection;
} {
  let memo: ProjectionMemo | null = null;
  let sent: Projection | null = null;
  for (const end of callPoints(scenario.facts)) {
    const input = { ...inputAt(scenario, end, memo), tools };
    const before = project(input);
    if (before.needsCompaction && sent) return { input, before, sent };
    memo = before.memo ?? null;
    sent = before;
  }
  throw new Error("no compaction point");
}

describe("the summary call as a continuation of the agent's request", () => {
  const scenario: Scenario = {
    facts: session(40),
    profile: { maxInputTokens: 8_000 },
    rewriteMinTokens: undefined,
  };

  it("repeats the last request byte for byte, tools included, and appends the instruction last", () => {
    const { input, before, sent } = firstCompactionPoint(scenario);
    const plan = planCompaction(input, { timeZone: "UTC", projection: before });
    expect(plan).not.toBeNull();
    const request = plan?.request;
    expect(request?.form).toBe("continuation");
    const messages = request?.messages ?? [];
    // The previous call's request is a prefix of the summary request: a prefix cache serves all of it.
    expect(messages.slice(0, sent.messages.length).map((message) => JSON.stringify(message))).toEqual(
      sent.messages.map((message) => JSON.stringify(message)),
    );
    expect(request?.cachedPrefixMessages).toBe(messages.length - 1);
    expect(request?.tools).toEqual(tools);
    expect(request?.tool_choice).toBe("none");
    expect(request?.max_tokens).toBe(summaryBudgetTokens(scenario.profile));
    const instruction = String(messages.at(-1)?.content);
    expect(messages.at(-1)?.role).toBe("user");
    expect(instruction).toMatch(/^\[Context compaction\]/);
    // The newest K messages are the tail the cut keeps: they are named, the rest is summarized.
    const kept = Number(instruction.match(/The newest (\d+) messages/)?.[1]);
    const keptIds = new Set(
      (plan?.toSummarize.length ?? 0) > 0
        ? input.messages
            .slice(input.messages.indexOf(plan?.toSummarize.at(-1) as StoredMessage) + 1)
            .map((fact) => fact.id)
        : [],
    );
    const tailIds = before.continuation.sourceIds.slice(before.continuation.sourceIds.length - kept);
    expect(kept).toBeGreaterThan(0);
    expect(tailIds.every((id) => id === null || keptIds.has(id))).toBe(true);
  });

  it("falls back to the standalone request when the continuation does not fit the summarizer's window", () => {
    const { input, before } = firstCompactionPoint(scenario);
    const plan = planCompaction(input, {
      timeZone: "UTC",
      projection: before,
      summarizerWindowTokens: before.continuation.tokens,
    });
    expect(plan?.request.form).toBe("standalone");
    expect(plan?.request).not.toHaveProperty("tools");
    expect(String(plan?.request.messages[0]?.content)).toMatch(/^You are summarizing/);
    // A summarizer of its own (another model) gets the standalone request too.
    const own = planCompaction(input, { timeZone: "UTC", projection: before, form: "standalone" });
    expect(own?.request.form).toBe("standalone");
  });

  it("strips provider-private state (I5): the prefix matches only up to the first message carrying it", () => {
    const withState: Scenario = { ...scenario, facts: session(30, true) };
    const { input, before } = firstCompactionPoint(withState);
    const plan = planCompaction(input, { timeZone: "UTC", projection: before });
    expect(plan?.request.form).toBe("continuation");
    expect(JSON.stringify(plan?.request.messages)).not.toContain("reasoning_details");
    const firstWithState = before.continuation.messages.findIndex((message) => message.reasoning_details);
    expect(firstWithState).toBeGreaterThan(0);
    expect(plan?.request.cachedPrefixMessages).toBe(firstWithState);
  });
});

describe("a continuation that would not fit the summarizer's window", () => {
  const tokenizer = createTokenizer("o200k_base");
  const callOf = (id: string): ChatMessage => ({
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } }],
  });
  // A conversation sent before, then a large result that just arrived (kept verbatim after the summary).
  const messages: ChatMessage[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Refactor the inventory module." },
    callOf("c1"),
    { role: "tool", tool_call_id: "c1", content: "export const a = 1;\n".repeat(200) },
    callOf("c2"),
    { role: "tool", tool_call_id: "c2", content: "export const big = 2;\n".repeat(1_500) },
  ];
  const tokens = messages.reduce((sum, message) => sum + estimateMessageTokens(message, tokenizer), 0);
  const bigTokens = estimateMessageTokens(messages[5] as ChatMessage, tokenizer);
  const build = (keptMessages: number) =>
    buildContinuationRequest({
      agentRequest: { messages, tokens },
      tools,
      keptMessages,
      kind: "prefix",
      now: 0,
      timeZone: "UTC",
      tokenizer,
      windowTokens: tokens - Math.floor(bigTokens / 2),
      maxOutputTokens: 400,
    });

  it("replaces the largest kept message by a stand-in, keeping the prefix the cache serves", () => {
    const request = build(2);
    expect(request).not.toBeNull();
    const sent = request?.messages ?? [];
    // Everything before the large result is the agent's request as sent; the call keeps its answer.
    expect(sent.slice(0, 5)).toEqual(messages.slice(0, 5));
    expect(sent[5]).toEqual({ role: "tool", tool_call_id: "c2", content: keptStandIn(bigTokens) });
    expect(request?.cachedPrefixMessages).toBe(5);
    expect(request?.shortened).toBe(1);
    expect((request?.inputTokens ?? 0) + 400).toBeLessThanOrEqual(tokens - Math.floor(bigTokens / 2));
    expect(sent.at(-1)?.content).toContain("newest 2 messages above will be kept verbatim");
  });

  it("falls back (null) when what it must summarize alone does not fit", () => {
    expect(build(0)).toBeNull();
  });
});
