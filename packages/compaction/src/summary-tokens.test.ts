import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { buildSummaryRequest } from "./summary-request.ts";
import { createTokenizer, estimateMessageTokens, type Tokenizer } from "./tokenizer.ts";

const base = createTokenizer("o200k_base");

/** The real tokenizer, recording every text it is asked to count. */
function recording(): { tokenizer: Tokenizer; texts: string[] } {
  const texts: string[] = [];
  const tokenizer: Tokenizer = {
    ...base,
    count(text: string) {
      texts.push(text);
      return base.count(text);
    },
  };
  return { tokenizer, texts };
}

const line = "src/app/handlers.ts:42: export function handle(request: Request) { return route(request); }\n";
const messages: ChatMessage[] = [
  { role: "user", content: "Find where requests are routed and fix the 404 on /health." },
  {
    role: "assistant",
    content: "Looking at the handlers.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "grep", arguments: '{"pattern":"route"}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: line.repeat(40) },
  // Long enough to be shortened at the smaller render steps.
  {
    role: "tool",
    tool_call_id: "call_2",
    content: "tests/test_routes.py::test_health FAILED (404)\n".repeat(800),
  },
];

function request(tokenizer: Tokenizer, windowTokens: number, stored: boolean) {
  return buildSummaryRequest({
    messages,
    kind: "prefix",
    now: Date.UTC(2026, 0, 5),
    timeZone: "UTC",
    tokenizer,
    windowTokens,
    maxOutputTokens: 1_000,
    ...(stored ? { messageTokens: messages.map((message) => estimateMessageTokens(message, base)) } : {}),
  });
}

describe("summary request token counts", () => {
  it("take a whole message's count from the store and tokenize only what is shortened", () => {
    const { tokenizer, texts } = recording();
    // A window that forces the long result to be shortened while the others stay whole.
    const summary = request(tokenizer, 4_500, true);
    expect(summary.shortened).toBe(1);
    expect(summary.omitted).toBe(0);
    const whole = [messages[0], messages[1], messages[2]].map(
      (message) => (message as ChatMessage).content as string,
    );
    for (const text of texts) for (const content of whole) expect(text.includes(content)).toBe(false);
    // The estimate stays within a few tokens per message of counting every rendered text.
    const counted = request(base, 4_500, false);
    expect(Math.abs(summary.inputTokens - counted.inputTokens)).toBeLessThanOrEqual(4 * messages.length);
    expect(summary.messages).toEqual(counted.messages);
  });

  it("count every rendering without stored counts (as before)", () => {
    const { tokenizer, texts } = recording();
    request(tokenizer, 4_500, false);
    expect(texts.some((text) => text.includes(line.repeat(40)))).toBe(true);
  });
});
