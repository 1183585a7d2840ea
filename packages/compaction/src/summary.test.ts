import { describe, expect, it } from "vitest";
import { buildSummaryMessage, cutSummaryText, SUMMARY_HEADER } from "./summary-message.ts";
import { buildSummaryRequest, localDateTime } from "./summary-request.ts";
import { createTokenizer } from "./tokenizer.ts";

const tokenizer = createTokenizer();
const now = Date.UTC(2026, 10, 30, 23, 30);

describe("summary request", () => {
  it("has no tools, starts with 'You are summarizing', tells local date and zone, folds the previous summary", () => {
    const request = buildSummaryRequest({
      messages: [
        { role: "user", content: "fix the parser by tomorrow" },
        {
          role: "assistant",
          content: "on it",
          reasoning_details: [{ type: "reasoning.encrypted", data: "SECRET" }],
          tool_calls: [
            { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"p.ts"}' } },
          ],
        },
        { role: "tool", tool_call_id: "c1", content: "parser source" },
      ],
      kind: "prefix",
      previousSummary: "Earlier: set up the repo.",
      now,
      timeZone: "Europe/Berlin",
      tokenizer,
      windowTokens: 100_000,
    });
    expect(request).not.toHaveProperty("tools");
    expect(request.messages[0]?.role).toBe("system");
    expect(String(request.messages[0]?.content)).toMatch(/^You are summarizing the EARLIER PART/);
    const user = String(request.messages[1]?.content);
    expect(user).toContain("2026-12-01 00:30 (Europe/Berlin, Tuesday)");
    expect(user).toContain("Earlier: set up the repo.");
    expect(user).toContain("read_file");
    expect(JSON.stringify(request)).not.toContain("SECRET");
  });

  it("bounds a transcript larger than the summarizer window", () => {
    const huge = Array.from({ length: 40 }, (_, index) => ({
      role: "tool" as const,
      tool_call_id: `c${index}`,
      content: `row ${index} `.repeat(2_000),
    }));
    const request = buildSummaryRequest({
      messages: huge,
      kind: "segment",
      now,
      timeZone: "Nowhere/Invalid",
      tokenizer,
      windowTokens: 8_000,
      maxOutputTokens: 1_000,
    });
    expect(request.inputTokens).toBeLessThanOrEqual(7_000);
    expect(request.shortened + request.omitted).toBeGreaterThan(0);
    expect(String(request.messages[1]?.content)).toContain("(UTC,");
    expect(String(request.messages[0]?.content)).toMatch(/^You are summarizing the MOST RECENT SEGMENT/);
  });

  it("formats local time in the given zone", () => {
    expect(localDateTime(now, "America/New_York")).toBe("2026-11-30 18:30 (America/New_York, Monday)");
  });
});

describe("buildSummaryMessage", () => {
  it("is a user message starting with the summary header", () => {
    const message = buildSummaryMessage("Task: X", {
      strategy: "partial",
      summarizedMessages: 12,
      firstSeq: 0,
      lastSeq: 11,
    });
    expect(message.role).toBe("user");
    expect(
      String(message.content).startsWith(`${SUMMARY_HEADER}\n(partial compaction of 12 messages, seq 0–11`),
    ).toBe(true);
  });
});

describe("cutSummaryText", () => {
  it("cuts at a paragraph boundary and points to the history file; leaves a fitting text alone", () => {
    const text = Array.from(
      { length: 30 },
      (_, index) => `Paragraph ${index} says something.\nSecond line.`,
    ).join("\n\n");
    const cut = cutSummaryText(text, 120, tokenizer, ".longrun/history/t/a.jsonl");
    expect(cut.cut).toBe(true);
    expect(tokenizer.count(cut.text)).toBeLessThanOrEqual(120);
    expect(cut.text).toMatch(
      /Second line\.\n\[Summary cut to fit the window; the compacted messages are in the history file \.longrun\/history\/t\/a\.jsonl\.\]$/,
    );
    expect(cutSummaryText("Short.", 120, tokenizer, null)).toEqual({ text: "Short.", cut: false });
  });
});
