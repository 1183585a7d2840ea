import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { countPieceTokens } from "./heap-bpe.ts";
import { countLongTextsOffThread, OFF_THREAD_CHARS } from "./off-thread-count.ts";
import { countText, isCounted } from "./tokens.ts";
import type { WireRequest } from "./wire.ts";

function freshLetters(length: number): string {
  let text = "";
  for (const byte of randomBytes(length)) text += String.fromCharCode(97 + (byte % 26));
  return text;
}

describe("counting a request's long texts off the event loop", () => {
  it("counts them on the worker while the loop turns, and the request then finds the counts cached", async () => {
    const long = freshLetters(200_000);
    const args = JSON.stringify({ path: freshLetters(OFF_THREAD_CHARS + 10) });
    const request: WireRequest = {
      model: "sim",
      messages: [
        { role: "user", content: long },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "write_file", arguments: args } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "ok" },
      ],
    };
    let settled = false;
    const counting = countLongTextsOffThread(request).then(() => {
      settled = true;
    });
    // An inline count (even behind an await) would have settled before a setImmediate callback runs.
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    await counting;
    expect(isCounted(long)).toBe(true);
    expect(isCounted(args)).toBe(true);
    expect(isCounted("ok")).toBe(false);
    // The worker's count is the exact one.
    expect(countText(long)).toBe(countPieceTokens(long));
  });
});
