import type { StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { selectCutoff } from "./cutoff.ts";
import { createTokenizer } from "./tokenizer.ts";

const tokenizer = createTokenizer();
let seq = 0;
const fact = (partial: Partial<StoredMessage> & Pick<StoredMessage, "role">): StoredMessage => {
  seq++;
  return {
    id: `m${seq}`,
    agentId: "a",
    seq: seq + 100,
    content: "x",
    tokenCount: 100,
    createdAt: seq,
    ...partial,
  };
};
const call = (id: string) => ({ id, type: "function" as const, function: { name: "bash", arguments: "{}" } });

describe("selectCutoff", () => {
  it("keeps the last N messages without a window and never splits a call from its results", () => {
    const messages = [
      fact({ role: "user", content: "task" }),
      fact({ role: "assistant", content: null, toolCalls: [call("a"), call("b")] }),
      fact({ role: "tool", toolCallId: "a" }),
      fact({ role: "assistant", content: "meanwhile" }),
      fact({ role: "tool", toolCallId: "b" }),
      fact({ role: "assistant", content: "next" }),
      fact({ role: "assistant", content: null, toolCalls: [call("c")] }),
      fact({ role: "tool", toolCallId: "c" }),
    ];
    const cut = selectCutoff(messages, { fallbackKeepMessages: 4 }, { tokenizer });
    // Target index 4 is a tool result whose call is at 1: the cut moves back to the call.
    expect(cut.index).toBe(1);
    expect(cut.cutoffMessageId).toBe(messages[1]?.id);
    expect(cut.cutoffIndex).toBe(messages[1]?.seq);
    expect(cut.pinned?.content).toBe("task");
    expect(cut.toSummarize).toHaveLength(1);
  });

  it("keeps about keepRatio of the window and pins the latest user message before the cut", () => {
    const messages = [
      fact({ role: "user", content: "only instruction" }),
      ...Array.from({ length: 20 }, () => fact({ role: "assistant", content: "work" })),
    ];
    const cut = selectCutoff(messages, { maxInputTokens: 5_000, keepRatio: 0.1 }, { tokenizer });
    expect(cut.kept).toHaveLength(5);
    expect(cut.pinned).toEqual({ role: "user", content: "only instruction" });
  });

  it("cuts forward past a huge call group rather than keep it (the compaction must not grow)", () => {
    // Shaped like cc-4d5611e5-sub at 16k: a read with one ~9k-token result, then a small glob loop.
    const messages = [
      fact({ role: "user", content: "task" }),
      fact({ role: "assistant", content: null, toolCalls: [call("r1"), call("r2")] }),
      fact({ role: "tool", toolCallId: "r1", tokenCount: 9_000 }),
      fact({ role: "tool", toolCallId: "r2" }),
      fact({ role: "assistant", content: null, toolCalls: [call("g1"), call("g2")] }),
      fact({ role: "tool", toolCallId: "g1" }),
      fact({ role: "tool", toolCallId: "g2" }),
    ];
    const cut = selectCutoff(messages, { maxInputTokens: 16_000 }, { tokenizer });
    // Backward the safe cut would be index 1 (keeping the 9k result); forward it is the glob loop.
    expect(cut.index).toBe(4);
    expect(cut.kept.map((message) => message.id)).toEqual(messages.slice(4).map((message) => message.id));
    expect(cut.pinned?.content).toBe("task");
  });

  it("full compaction keeps nothing and carries the previous pin forward", () => {
    const messages = [fact({ role: "assistant", content: "a" }), fact({ role: "assistant", content: "b" })];
    const previousPinned = { role: "user" as const, content: "old task" };
    const cut = selectCutoff(messages, {}, { tokenizer, strategy: "full", previousPinned });
    expect(cut.cutoffMessageId).toBeNull();
    expect(cut.cutoffIndex).toBe((messages[1]?.seq ?? 0) + 1);
    expect(cut.pinned).toEqual(previousPinned);
  });

  it("keeps no more recent context than maxKeptTokens allows, but always the active tool loop", () => {
    const messages = [
      fact({ role: "user", content: "task" }),
      fact({ role: "assistant", content: null, toolCalls: [call("a")] }),
      fact({ role: "tool", toolCallId: "a", tokenCount: 600 }),
      fact({ role: "assistant", content: null, toolCalls: [call("b")] }),
      fact({ role: "tool", toolCallId: "b", tokenCount: 600 }),
      fact({ role: "assistant", content: null, toolCalls: [call("c")] }),
      fact({ role: "tool", toolCallId: "c", tokenCount: 900 }),
    ];
    const profile = { maxInputTokens: 16_000 };
    // Unbounded, the last three results and their calls stay (about 2.4k tokens).
    expect(selectCutoff(messages, profile, { tokenizer }).index).toBe(1);
    // Bounded to 800 tokens: only the active loop (call c and its 900-token result) stays.
    const bounded = selectCutoff(messages, profile, { tokenizer, maxKeptTokens: 800 });
    expect(bounded.index).toBe(5);
    expect(bounded.kept.map((message) => message.id)).toEqual(messages.slice(5).map((message) => message.id));
    expect(selectCutoff(messages, profile, { tokenizer, maxKeptTokens: 1_800 }).index).toBe(3);
  });
});
