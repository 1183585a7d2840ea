import { monitorEventLoopDelay } from "node:perf_hooks";
import { createTokenizer, estimateStoredTokens, MESSAGE_OVERHEAD } from "@longrun/compaction";
import { afterEach, describe, expect, it } from "vitest";
import {
  countsOffThread,
  createMessageCounter,
  type MessageCounter,
  OFF_THREAD_CHARS,
} from "./message-counter.ts";

const tokenizer = createTokenizer("o200k_base");
let counter: MessageCounter | undefined;
afterEach(async () => {
  await counter?.close();
  counter = undefined;
});

/**
 * The count a pending promise resolves to, asserted to come back only after the loop turned: an inline
 * count (even one behind an await) would have settled before a setImmediate callback runs.
 */
async function countedOffLoop(pending: Promise<number>): Promise<number> {
  let settled = false;
  const counted = pending.then((count) => {
    settled = true;
    return count;
  });
  await new Promise((resolve) => setImmediate(resolve));
  expect(settled).toBe(false);
  return counted;
}

describe("the message counter", () => {
  it("counts a large message off the event loop, to the same count as inline", async () => {
    const remembered = new Map<string, number>();
    counter = createMessageCounter({
      ...tokenizer,
      remember: (text, tokens) => remembered.set(text, tokens),
    });
    const small = { role: "user" as const, content: "a short message" };
    expect(await counter.count(small)).toBe(estimateStoredTokens(small, tokenizer));
    // No whitespace at all: the text that used to take seconds to count.
    const large = { role: "user" as const, content: "x9".repeat(100_000) };
    expect(large.content.length).toBeGreaterThan(OFF_THREAD_CHARS);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const offThread = await countedOffLoop(counter.count(large));
    delay.disable();
    const blockedOff = delay.max / 1e6;
    const started = performance.now();
    const inline = estimateStoredTokens(large, createTokenizer("o200k_base"));
    const blockedInline = performance.now() - started;
    expect(offThread).toBe(inline);
    // The count of the long text came back with it, for this thread's tokenizer to keep.
    expect(remembered.get(large.content)).toBe(inline - MESSAGE_OVERHEAD);
    console.log(
      `[counter] 200,000 characters without whitespace: inline blocks ${blockedInline.toFixed(0)} ms, off-thread the loop's worst delay was ${blockedOff.toFixed(0)} ms`,
    );
  }, 60_000);

  it("counts a large text (a gateway client's system text or tool JSON) off the loop, to the tokenizer's count", async () => {
    counter = createMessageCounter(tokenizer);
    expect(await counter.countText("short text")).toBe(tokenizer.count("short text"));
    const large = "ab".repeat(60_000);
    expect(await countedOffLoop(counter.countText(large))).toBe(tokenizer.count(large));
  }, 60_000);

  it("counts a short text holding a long stretch without spaces off the loop too", async () => {
    counter = createMessageCounter(tokenizer);
    // 15,000 characters, under OFF_THREAD_CHARS, but one piece: inline it held the loop ~200 ms.
    const answer = { role: "assistant" as const, content: `Echo: ${"y".repeat(15_000)}` };
    expect(answer.content.length).toBeLessThan(OFF_THREAD_CHARS);
    expect(countsOffThread(answer.content)).toBe(true);
    expect(countsOffThread("ordinary words, ".repeat(900))).toBe(false);
    expect(await countedOffLoop(counter.count(answer))).toBe(estimateStoredTokens(answer, tokenizer));
  }, 60_000);
});
