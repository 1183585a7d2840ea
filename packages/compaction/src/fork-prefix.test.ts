import type { ChatMessage, CompactionEvent, StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { compactionFields, planCompaction } from "./plan-compaction.ts";
import { type ProjectionInput, project } from "./project.ts";
import { createTokenizer, estimateStoredTokens } from "./tokenizer.ts";
import { verifyProjection } from "./verify.ts";

const tokenizer = createTokenizer();

/** A parent's projection at the spawn, large enough to fill most of an 8k window. */
const prefix: ChatMessage[] = [
  { role: "system", content: "You are the parent agent." },
  { role: "user", content: "Survey the warehouse project." },
  ...Array.from({ length: 10 }, (_, step): ChatMessage[] => [
    {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `p${step}`,
          type: "function",
          function: { name: "read_file", arguments: `{"path":"f${step}"}` },
        },
      ],
    },
    { role: "tool", tool_call_id: `p${step}`, content: `parent read ${step}\n`.repeat(150) },
  ]).flat(),
];

function childFacts(): StoredMessage[] {
  const facts: StoredMessage[] = [];
  const add = (partial: Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt">) => {
    const seq = facts.length;
    const fact = { ...partial, id: `c${seq}`, agentId: "child", seq, tokenCount: 0, createdAt: 10 + seq };
    facts.push({ ...fact, tokenCount: estimateStoredTokens(fact, tokenizer) });
  };
  add({ role: "user", content: "Check the ledger module." });
  add({
    role: "assistant",
    content: null,
    toolCalls: [
      { id: "k1", type: "function", function: { name: "read_file", arguments: '{"path":"ledger.ts"}' } },
    ],
  });
  add({ role: "tool", toolCallId: "k1", toolStatus: "ok", content: "ledger line\n".repeat(150) });
  return facts;
}

function input(compaction: CompactionEvent | null): ProjectionInput {
  return {
    systemPrompt: null,
    prefix,
    messages: childFacts(),
    compaction,
    state: null,
    profile: { maxInputTokens: 8_000 },
    now: 1_000,
    tokenizer,
  };
}

describe("a forked sub-agent whose inherited prefix fills the window", () => {
  it("folds the prefix into its first summary and stops sending it", () => {
    const before = project(input(null));
    expect(before.marks.filter((mark) => mark === "prefix").length).toBe(prefix.length);
    expect(before.needsCompaction).toBe(true);
    // Without folding, there is nothing of the child's own to summarize that would help.
    const plan = planCompaction(input(null), { timeZone: "UTC", foldPrefix: true });
    expect(plan).not.toBeNull();
    expect(plan?.includesPrefix).toBe(true);
    const transcript = JSON.stringify(plan?.request.messages);
    expect(transcript).toContain("parent read 0");
    const event: CompactionEvent = {
      id: "e1",
      agentId: "child",
      ...compactionFields(plan!, "Summary: the parent surveyed the project; the child checks the ledger."),
      historyFile: null,
      trigger: "auto",
      tokensBefore: before.tokens,
      tokensAfter: 0,
      restored: [],
      createdAt: 500,
    };
    const after = project(input(event));
    expect(after.marks).not.toContain("prefix");
    // The fold takes the conversation, never the instructions: the request still opens with them.
    expect(after.messages[0]).toEqual({ role: "system", content: "You are the parent agent." });
    expect(after.marks[0]).toBe("system");
    expect(transcript).not.toContain("You are the parent agent.");
    expect(after.tokens).toBeLessThan(before.tokens);
    expect(verifyProjection(after).ok).toBe(true);
    // A later compaction keeps the prefix folded and does not summarize it again.
    const again = planCompaction(input(event), { timeZone: "UTC", foldPrefix: true });
    expect(again === null || again.includesPrefix).toBe(true);
    expect(JSON.stringify(again?.request.messages ?? [])).not.toContain("parent read 0\\nparent read 0");
  });
});
