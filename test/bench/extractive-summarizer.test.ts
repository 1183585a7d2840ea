import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { extractiveSummary, SUMMARY_TOKEN_LIMIT } from "./extractive-summarizer.ts";
import { textTokens } from "./tokens.ts";

describe("extractive stand-in summarizer", () => {
  it("keeps the task and the latest actions within its token bound", () => {
    const messages: ChatMessage[] = [
      { role: "system", content: "You are summarizing ..." },
      { role: "user", content: `Fix the parser. ${"context ".repeat(2_000)}` },
    ];
    for (let index = 0; index < 300; index++) {
      messages.push({
        role: "assistant",
        content: `step ${index}`,
        tool_calls: [
          {
            id: `c${index}`,
            type: "function",
            function: { name: "bash", arguments: `{"command":"cat file${index}.py ${"x".repeat(500)}"}` },
          },
        ],
      });
      messages.push({ role: "tool", tool_call_id: `c${index}`, content: "y".repeat(1_000) });
    }
    const summary = extractiveSummary(messages);
    expect(textTokens(summary)).toBeLessThanOrEqual(SUMMARY_TOKEN_LIMIT);
    expect(summary).toContain("Fix the parser.");
    expect(summary).toContain("file299.py");
    expect(summary).toContain("step 299");
  });
});
