import { describe, expect, it } from "vitest";
import { exhaustedReason } from "./exhausted-reason.ts";

const user = (content: string) => ({ role: "user" as const, content });
const measured = (toolsTokens: number, messageTokens: number[]) => ({
  tokens: toolsTokens + messageTokens.reduce((sum, tokens) => sum + tokens, 0),
  limitTokens: 8_000,
  toolsTokens,
  messageTokens,
  marks: messageTokens.map((_, index) => (index === 0 ? ("system" as const) : ("raw" as const))),
  messages: messageTokens.map((_, index) =>
    index === 0 ? { role: "system" as const, content: "s" } : user("u"),
  ),
});

describe("why a gateway conversation cannot continue", () => {
  it("names the client's tools when they are what is over, not the system prompt", () => {
    const reason = exhaustedReason(measured(6_000, [1_500, 300, 400]));
    expect(reason).toContain("the client's tool definitions alone take 6,000");
    expect(reason).toContain("tools 6,000, system prompt 1,500, messages 700");
  });

  it("names the system prompt, one message, or the verbatim messages together", () => {
    expect(exhaustedReason(measured(500, [7_000, 900]))).toContain("the system prompt alone takes 7,000");
    expect(exhaustedReason(measured(500, [1_000, 200, 7_500]))).toContain(
      "one user message (#2, raw) alone takes 7,500",
    );
    expect(exhaustedReason(measured(500, [1_000, 2_500, 2_500, 2_500]))).toContain(
      "the recent messages that must stay verbatim take 7,500",
    );
  });

  it("names the tools and system prompt together when neither takes most of the window alone", () => {
    expect(exhaustedReason(measured(3_000, [5_400, 1_500]))).toContain(
      "the tool definitions and system prompt together take 8,400",
    );
  });

  it("where the tools and system prompt fit, names the messages that do not fit the room they leave", () => {
    // qwen-code at 24k: tools and system prompt fit; its pinned first message and one capped grep result
    // do not fit what they leave (scaled to an 8k window here).
    const reason = exhaustedReason({
      ...measured(2_800, [2_000, 800, 300, 1_350, 900]),
      marks: ["system", "pinned", "summary", "raw", "raw"],
      messages: [
        { role: "system" as const, content: "s" },
        user("task"),
        user("summary"),
        { role: "tool" as const, tool_call_id: "c1", content: "grep" },
        { role: "tool" as const, tool_call_id: "c2", content: "ls" },
      ],
    });
    expect(reason).toContain(
      "the tool definitions and system prompt take 4,800, leaving 3,200: the messages take 3,350; the largest: a tool message (#3, raw) 1,350, a tool message (#4, raw) 900, a user message (#1, pinned) 800",
    );
  });

  it("avoids the words clients read as a provider overflow", () => {
    const reason = exhaustedReason(measured(6_000, [1_500, 900]));
    expect(reason).not.toMatch(/too long|exceed|context length|overflow|too many tokens/i);
  });
});
