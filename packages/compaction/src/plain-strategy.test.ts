import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { PLAIN_SUMMARY_INSTRUCTION, PlainStrategy } from "./plain-strategy.ts";
import { createTokenizer, estimateMessageTokens } from "./tokenizer.ts";

const tokenizer = createTokenizer("o200k_base");
const WINDOW = 8000;

/** One tool-calling turn: the assistant's call and its result of about `lines` × 10 tokens. */
function turn(id: number, lines: number): ChatMessage[] {
  const callId = `call_${id}`;
  return [
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: callId, type: "function", function: { name: "read", arguments: `{"n":${id}}` } }],
    },
    {
      role: "tool",
      tool_call_id: callId,
      content: Array.from({ length: lines }, (_, line) => `line ${id}.${line} of the file`).join("\n"),
    },
  ];
}

function strategy(headerTokens = 100): PlainStrategy {
  return new PlainStrategy({ windowTokens: WINDOW, headerTokens, tokenizer });
}

describe("PlainStrategy", () => {
  it("appends until a request passes 75 % of the window, then summarizes once", () => {
    const plain = strategy();
    let step = plain.callPoint([{ role: "user", content: "Read every file." }]);
    let id = 0;
    const sizes: number[] = [];
    while (step.compaction === undefined) {
      // Append-only: each request extends the previous one and stays within the trigger.
      expect(step.request.tokens).toBeLessThanOrEqual(plain.triggerTokens);
      sizes.push(step.request.tokens);
      step = plain.callPoint(turn(id++, 20));
    }
    expect(plain.triggerTokens).toBe(6000);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    expect(step.compaction.tokensBefore).toBeGreaterThan(6000);
    // The summary call is the request as it stood plus the instruction: one call, fixed output.
    const summary = step.summary;
    expect(summary?.outputTokens).toBe(400);
    expect(summary?.request.messages.at(-1)).toEqual({ role: "user", content: PLAIN_SUMMARY_INSTRUCTION });
    expect(summary?.request.tokens).toBe(
      step.compaction.tokensBefore +
        estimateMessageTokens({ role: "user", content: PLAIN_SUMMARY_INSTRUCTION }, tokenizer),
    );
    // Afterwards: header + summary (400 + framing) + the newest ≈10 % of the window.
    const [first, ...kept] = step.request.messages;
    expect(first?.role).toBe("user");
    expect(String(first?.content)).toMatch(/^\[Summary 1 of the \d+ earlier messages: 400 tokens/);
    expect(step.request.messageTokens[0]).toBe(404);
    const keptTokens = step.request.messageTokens.slice(1).reduce((sum, tokens) => sum + tokens, 0);
    // The newest messages within 800 tokens, extended back to the call of a leading tool result.
    expect(kept[0]?.role).not.toBe("tool");
    expect(keptTokens - (step.request.messageTokens[1] ?? 0)).toBeLessThanOrEqual(800);
    expect(kept.length).toBeGreaterThan(1);
    expect(step.compaction.tokensAfter).toBe(step.request.tokens);
    expect(step.request.tokens).toBe(100 + 404 + keptTokens);
    // The next call point appends again without a summary.
    const next = plain.callPoint(turn(id++, 20));
    expect(next.summary).toBeUndefined();
    expect(next.request.messages.slice(0, step.request.messages.length)).toEqual(step.request.messages);
  });

  it("never opens the kept part on a tool result: the cut moves back to the call", () => {
    const plain = strategy();
    plain.callPoint([{ role: "user", content: "Go." }]);
    // Turns whose results are ~700 tokens: the newest result alone nearly fills the 800-token keep.
    let step = plain.callPoint(turn(0, 70));
    let id = 1;
    while (step.compaction === undefined) step = plain.callPoint(turn(id++, 70));
    const kept = step.request.messages.slice(1);
    expect(kept[0]?.role).toBe("assistant");
    expect(kept[0]?.tool_calls?.[0]?.id).toBe(`call_${id - 1}`);
    expect(kept.at(-1)?.tool_call_id).toBe(`call_${id - 1}`);
  });

  it("keeps a call and all its results together even when they exceed the keep share", () => {
    const plain = strategy();
    plain.callPoint([{ role: "user", content: "Go." }]);
    for (let id = 0; plain.callPoint(turn(id, 50)).request.tokens < 5000; id++);
    // One call with three results of ~500 tokens each (1,500 > the 800 kept).
    const results = ["a", "b", "c"].map((name) => ({ id: `multi_${name}`, name }));
    const burst: ChatMessage[] = [
      {
        role: "assistant",
        content: null,
        tool_calls: results.map((result) => ({
          id: result.id,
          type: "function" as const,
          function: { name: "read", arguments: `{"f":"${result.name}"}` },
        })),
      },
      ...results.map((result) => ({
        role: "tool" as const,
        tool_call_id: result.id,
        content: Array.from({ length: 50 }, (_, line) => `${result.name} line ${line} of text`).join("\n"),
      })),
    ];
    const step = plain.callPoint(burst);
    expect(step.compaction).toBeDefined();
    expect(step.request.messages.slice(1)).toEqual(burst);
  });

  it("leaves the oldest messages out of a summary call that would not fit the window with its output", () => {
    const plain = strategy();
    plain.callPoint([{ role: "user", content: "Go." }]);
    for (let id = 0; plain.callPoint(turn(id, 50)).request.tokens < 5000; id++);
    // One result larger than the room left: the summary call cannot carry the whole conversation.
    const step = plain.callPoint(turn(99, 300));
    const summary = step.summary;
    expect(step.compaction?.tokensBefore).toBeGreaterThan(WINDOW);
    expect(summary?.dropped).toBeGreaterThan(0);
    // Its tokens count the header too: input plus output within the window.
    expect((summary?.request.tokens ?? 0) + (summary?.outputTokens ?? 0)).toBeLessThanOrEqual(WINDOW);
    // Dropped from the front, never opening on a tool result, the instruction last.
    expect(summary?.request.messages[0]?.role).not.toBe("tool");
    expect(summary?.request.messages.at(-1)?.content).toBe(PLAIN_SUMMARY_INSTRUCTION);
    expect(summary?.request.messages.at(-2)?.tool_call_id).toBe("call_99");
  });

  it("does not summarize when nothing would be left to replace", () => {
    const plain = new PlainStrategy({ windowTokens: 400, headerTokens: 50, tokenizer });
    // One user message alone over the trigger: the newest message always stays.
    const step = plain.callPoint([{ role: "user", content: "word ".repeat(400) }]);
    expect(step.request.tokens).toBeGreaterThan(300);
    expect(step.summary).toBeUndefined();
    expect(step.compaction).toBeUndefined();
  });
});
