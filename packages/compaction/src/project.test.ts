import type { CompactionEvent, StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { compactionFields, planCompaction } from "./plan-compaction.ts";
import { type ProjectionInput, project } from "./project.ts";
import { createTokenizer, estimateStoredTokens } from "./tokenizer.ts";
import { verifyProjection } from "./verify.ts";

const tokenizer = createTokenizer();
const HOUR = 3_600_000;

function history(): StoredMessage[] {
  const facts: StoredMessage[] = [];
  const add = (partial: Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt">): void => {
    const seq = facts.length;
    const fact = { ...partial, id: `m${seq}`, agentId: "a", seq, tokenCount: 0, createdAt: 1_000 + seq };
    facts.push({ ...fact, tokenCount: estimateStoredTokens(fact, tokenizer) });
  };
  add({ role: "user", content: "Refactor the parser." });
  for (let step = 0; step < 8; step++) {
    const id = `c${step}`;
    add({
      role: "assistant",
      content: null,
      toolCalls: [
        {
          id,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${step}.ts` }) },
        },
      ],
      providerState: { reasoningDetails: [{ type: "reasoning.encrypted", data: `enc${step}` }] },
    });
    add({ role: "tool", toolCallId: id, toolStatus: "ok", content: `line of file ${step}\n`.repeat(60) });
  }
  return facts;
}

function input(overrides: Partial<ProjectionInput> = {}): ProjectionInput {
  return {
    systemPrompt: "You are an agent.",
    messages: history(),
    compaction: null,
    state: null,
    profile: { maxInputTokens: 100_000 },
    now: 2_000,
    tokenizer,
    ...overrides,
  };
}

describe("project", () => {
  it("under the trigger sends the facts as they are, replaying reasoning state in its original chain", () => {
    const projection = project(input());
    expect(projection.needsCompaction).toBe(false);
    expect(projection.messages).toHaveLength(18);
    expect(projection.messages[2]?.reasoning_details).toEqual([
      { type: "reasoning.encrypted", data: "enc0" },
    ]);
    expect(projection.stages.every((stage) => stage.removed === "not run: under trigger")).toBe(true);
  });

  it("over the trigger collapses first and microcompacts only after an idle gap", () => {
    const busy = project(input({ profile: { maxInputTokens: 1_500 } }));
    expect(busy.saved.collapse).toBeGreaterThan(0);
    expect(busy.saved.microcompact).toBe(0);
    expect(busy.marks).toContain("collapsed");
    const idle = project(
      input({ profile: { maxInputTokens: 800, microcompactKeep: 1 }, now: 1_000 + 7 * HOUR }),
    );
    expect(idle.saved.microcompact).toBeGreaterThan(0);
    expect(
      idle.messages.some((message) => String(message.content).startsWith("[result cleared after idle gap:")),
    ).toBe(true);
    expect(idle.stages.find((stage) => stage.name === "microcompact")?.tokensAfter).toBeLessThan(
      idle.stages.find((stage) => stage.name === "microcompact")?.tokensBefore ?? 0,
    );
  });

  it("microcompacts when a thread idle for 7 h resumes with a new user message", () => {
    const facts = history();
    const idleSince = (facts[facts.length - 1] as StoredMessage).createdAt;
    const resumedAt = idleSince + 7 * HOUR;
    facts.push({
      id: "resume",
      agentId: "a",
      seq: facts.length,
      role: "user",
      content: "Back again: carry on with the parser.",
      tokenCount: 12,
      createdAt: resumedAt,
    });
    const profile = { maxInputTokens: 800, microcompactKeep: 1 };
    const resumed = project(input({ messages: facts, profile, now: resumedAt + 50 }));
    expect(resumed.saved.microcompact).toBeGreaterThan(0);
    expect(resumed.messages.at(-1)?.content).toBe("Back again: carry on with the parser.");
    // The same message a minute after the agent's last result is no resume: nothing is cleared.
    const quick = facts.map((fact) =>
      fact.id === "resume" ? { ...fact, createdAt: idleSince + 60_000 } : fact,
    );
    const busy = project(input({ messages: quick, profile, now: idleSince + 60_050 }));
    expect(busy.saved.microcompact).toBe(0);
  });

  it("plans a compaction, then projects pinned + summary + restored + tail without provider state", () => {
    const base = input({ profile: { maxInputTokens: 2_000 } });
    const plan = planCompaction(base, { timeZone: "UTC" });
    expect(plan).not.toBeNull();
    if (!plan) return;
    const event: CompactionEvent = {
      id: "c1",
      agentId: "a",
      historyFile: null,
      trigger: "auto",
      tokensBefore: 0,
      tokensAfter: 0,
      restored: [],
      createdAt: 5_000,
      ...compactionFields(plan, "Task: refactor the parser."),
    };
    const facts = base.messages.filter((fact) => fact.seq >= plan.cutoffIndex);
    const after = project({
      ...base,
      messages: facts,
      compaction: event,
      state: { plan: "1. read 2. refactor", todos: [] },
      restoredFiles: [{ path: "src/f7.ts", content: "export {};\n", readAt: 1 }],
    });
    expect(after.marks.slice(0, 5)).toEqual(["system", "pinned", "summary", "restored", "restored"]);
    expect(after.messages[1]?.content).toBe("Refactor the parser.");
    expect(after.messages.some((message) => message.reasoning_details !== undefined)).toBe(false);
    expect(after.boundary.resolvedBy).toBe("id");
    expect(verifyProjection(after)).toEqual({ ok: true });
  });

  it("after a compaction replays only the state issued on it, and the in-flight answer's signed thinking (I5)", () => {
    const facts = history();
    const compaction: CompactionEvent = {
      id: "c1",
      agentId: "a",
      cutoffMessageId: "m9",
      cutoffIndex: 9,
      summaryMessage: { role: "user", content: "[Context summary]\nRead f0 to f3." },
      historyFile: null,
      strategy: "partial",
      trigger: "auto",
      tokensBefore: 0,
      tokensAfter: 0,
      restored: [],
      createdAt: 1_012,
    };
    const at = (seq: number) => facts[seq] as StoredMessage;
    // m9 and m11 answered before the compaction (their chain is gone), m13 after it; m15 is in flight
    // (its result is the newest fact) and was answered before it.
    at(13).providerState = { ...at(13).providerState, issuedOnCompactionId: "c1" };
    const profile = { maxInputTokens: 100_000 };
    const reasoningOf = (projection: ReturnType<typeof project>, id: string) =>
      projection.messages[projection.sourceIds.indexOf(id)]?.reasoning_details;

    // OpenAI's encrypted reasoning is bound to the prefix it followed: the in-flight answer's goes too.
    let projection = project(input({ messages: facts, compaction, profile }));
    expect(reasoningOf(projection, "m9")).toBeUndefined();
    expect(reasoningOf(projection, "m11")).toBeUndefined();
    expect(reasoningOf(projection, "m13")).toEqual([{ type: "reasoning.encrypted", data: "enc6" }]);
    expect(reasoningOf(projection, "m15")).toBeUndefined();
    // Anthropic's signed thinking of the in-flight answer stays: the loop cannot think on without it.
    const thinking = {
      type: "reasoning.text" as const,
      text: "Read f7 next.",
      signature: "sig7",
      format: "anthropic-claude-v1",
    };
    at(15).providerState = { reasoningDetails: [thinking] };
    projection = project(input({ messages: facts, compaction, profile }));
    expect(reasoningOf(projection, "m15")).toEqual([thinking]);
    // Not in flight once a user message follows its result: it goes like any other.
    const later = [...facts, { ...at(0), id: "m17", seq: 17, content: "Now the lexer." }];
    projection = project(input({ messages: later, compaction, profile }));
    expect(reasoningOf(projection, "m15")).toBeUndefined();
    expect(reasoningOf(projection, "m13")).toEqual([{ type: "reasoning.encrypted", data: "enc6" }]);
  });

  it("uses usage only when it was measured after the compaction in force", () => {
    const facts = history();
    const last = facts[facts.length - 2] as StoredMessage;
    last.usage = { promptTokens: 50_000, completionTokens: 10, totalTokens: 50_010 };
    const anchored = project(input({ messages: facts }));
    expect(anchored.tokens).toBeGreaterThanOrEqual(50_000);
  });

  it("reports an over-limit projection as context_exhausted, naming a message that alone is too large", () => {
    const facts = history();
    facts.push({
      id: "huge",
      agentId: "a",
      seq: 99,
      role: "user",
      content: "word ".repeat(5_000),
      tokenCount: 0,
      createdAt: 3_000,
    });
    const verdict = verifyProjection(project(input({ messages: facts, profile: { maxInputTokens: 4_000 } })));
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/a raw message \(#\d+\) alone is \d+ tokens/);
  });
});
