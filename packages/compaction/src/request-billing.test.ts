import { describe, expect, it } from "vitest";
import { billRequest, sharedPrefixParts } from "./request-billing.ts";

describe("sharedPrefixParts", () => {
  it("shares the leading byte-identical parts and nothing after the first difference", () => {
    const previous = ['{"system":"s","tools":[]}', '{"role":"user","content":"a"}', '{"role":"tool","x":1}'];
    expect(sharedPrefixParts(previous, [...previous, '{"role":"user","content":"b"}'])).toBe(3);
    // A rewritten second message breaks the prefix there, even though the third is equal again.
    expect(sharedPrefixParts(previous, [previous[0] as string, "changed", previous[2] as string])).toBe(1);
    // A shorter request (after a compaction) shares at most what it has.
    expect(sharedPrefixParts(previous, previous.slice(0, 2))).toBe(2);
  });

  it("shares nothing when the header (system prompt and tools) differs, or with no previous request", () => {
    const previous = ['{"system":"s","tools":[]}', '{"role":"user","content":"a"}'];
    expect(sharedPrefixParts(previous, ['{"system":"summarize","tools":[]}', previous[1] as string])).toBe(0);
    expect(sharedPrefixParts(null, previous)).toBe(0);
  });
});

describe("billRequest", () => {
  it("prices the shared prefix as cache reads and the rest as writes, per profile", () => {
    const bill = billRequest({ partTokens: [1000, 3000, 500, 500], sharedParts: 2, outputTokens: 0 });
    expect(bill.openai).toEqual({ cacheRead: 4000, cacheWrite: 0, uncached: 1000, output: 0, billed: 1400 });
    expect(bill.anthropic).toEqual({
      cacheRead: 4000,
      cacheWrite: 1000,
      uncached: 0,
      output: 0,
      billed: 1650,
    });
  });

  it("prices output at the output ratio times the input price (default 4)", () => {
    const request = { partTokens: [200, 800], sharedParts: 0, outputTokens: 100 };
    expect(billRequest(request).openai.billed).toBe(1000 + 400);
    expect(billRequest(request, 1).anthropic.billed).toBe(1250 + 100);
  });

  it("prices a summary call that shares nothing (its own system prompt) as writes throughout", () => {
    // A summarizer request: [summarizer system, transcript as one user message], 600 tokens out.
    const summary = billRequest({ partTokens: [300, 6000], sharedParts: 0, outputTokens: 600 });
    expect(summary.openai).toMatchObject({ cacheRead: 0, uncached: 6300, billed: 6300 + 2400 });
    expect(summary.anthropic).toMatchObject({ cacheRead: 0, cacheWrite: 6300, billed: 7875 + 2400 });
    // A summary call that extends the cached conversation pays full price only for its instruction.
    const extending = billRequest({ partTokens: [300, 6000, 50], sharedParts: 2, outputTokens: 600 });
    expect(extending.openai.billed).toBeCloseTo(630 + 50 + 2400, 10);
    expect(extending.anthropic.billed).toBeCloseTo(630 + 62.5 + 2400, 10);
  });
});
