import { describe, expect, it } from "vitest";
import { compactionEconomy, type EconomyInput, isNoProgress } from "./compaction-economy.ts";
import { decideCompaction } from "./compaction-need.ts";
import { planCompaction } from "./plan-compaction.ts";
import { project } from "./project.ts";
import { factLog, inputAt, tokenizer } from "./stable.test-helper.ts";
import { thresholds } from "./thresholds.ts";
import type { ProjectionItem } from "./types.ts";

/** A 16k window: trigger 12,000; a compaction lands near 3,500; a call adds about 500 tokens. */
const at16k: EconomyInput = {
  deterministicTokens: 12_400,
  deterministicResent: 0,
  continuationTokens: 12_400,
  summaryInstructionTokens: 300,
  summaryOutputTokens: 400,
  compactedTokens: 3_500,
  growthPerCall: 500,
  triggerTokens: 12_000,
};

describe("the compaction cost model", () => {
  it("finds a summary cheaper than sending a request kept over the trigger", () => {
    const verdict = compactionEconomy(at16k);
    // Deferring: every call reads 12,400 tokens from cache (1,240). Compacting: 1,240 + 300 + 1,600 for
    // the summary call, 3,150 to write the new request, spread over 17 calls reading 3,500 to 12,000.
    expect(verdict.perCall.deterministic).toBeCloseTo(1_240, 5);
    expect(verdict.calls.compaction).toBe(17);
    expect(verdict.perCall.compaction).toBeCloseTo((1_240 + 300 + 1_600 + 3_150) / 17 + 775, 5);
    expect(verdict.cheaper).toBe(true);
    expect(verdict.expectedSaving).toBeGreaterThan(0);
  });

  it("keeps the deterministic path when it lands far under the trigger for a small rewrite", () => {
    const verdict = compactionEconomy({ ...at16k, deterministicTokens: 5_000, deterministicResent: 1_000 });
    expect(verdict.cheaper).toBe(false);
    expect(verdict.expectedSaving).toBeLessThan(0);
  });

  it("prefers compaction to a rewrite that resends most of the request to land near the trigger", () => {
    const verdict = compactionEconomy({ ...at16k, deterministicTokens: 10_500, deterministicResent: 8_000 });
    expect(verdict.cheaper).toBe(true);
  });

  it("gets dearer with the output price and Anthropic-style cache writes", () => {
    const openai = compactionEconomy(at16k);
    const anthropic = compactionEconomy({
      ...at16k,
      prices: { cacheRead: 0.1, cacheWrite: 1.25, output: 4 },
    });
    expect(anthropic.perCall.compaction).toBeGreaterThan(openai.perCall.compaction);
  });
});

describe("must, cheaper, or no compaction", () => {
  const limits = thresholds({ maxInputTokens: 16_000 });
  const item = (
    role: "system" | "assistant" | "tool",
    tokens: number,
    mark: ProjectionItem["mark"] = "raw",
  ) => ({
    message: { role, content: "x" },
    mark,
    tokens,
  });
  // 24 calls of 500 tokens each (an answer and its result).
  const raw = Array.from({ length: 48 }, (_, index) => item(index % 2 === 0 ? "assistant" : "tool", 250));
  const base = {
    profile: { maxInputTokens: 16_000 },
    tokenizer,
    limits,
    header: [item("system", 800, "system")],
    raw,
    toolsTokens: 700,
  };

  it("says must when the deterministic stages leave the request over the trigger", () => {
    const decision = decideCompaction({
      ...base,
      must: true,
      tokens: 12_500,
      resentTokens: 0,
      extensionTokens: 12_500,
    });
    expect(decision?.need).toBe("must");
    expect(typeof decision?.expectedSaving).toBe("number");
  });

  it("says cheaper when the deterministic path resends most of the request to land near the trigger", () => {
    const decision = decideCompaction({
      ...base,
      must: false,
      tokens: 10_000,
      resentTokens: 8_000,
      extensionTokens: 12_300,
    });
    expect(decision).toMatchObject({ need: "cheaper" });
    expect(decision?.expectedSaving).toBeGreaterThan(0);
  });

  it("keeps a request just over the trigger when a compaction costs more per call", () => {
    expect(
      decideCompaction({ ...base, must: false, tokens: 12_300, resentTokens: 0, extensionTokens: 12_300 }),
    ).toBeNull();
  });

  it("asks for nothing while the request as sent is under the trigger", () => {
    expect(
      decideCompaction({ ...base, must: false, tokens: 9_000, resentTokens: 0, extensionTokens: 9_000 }),
    ).toBeNull();
  });
});

describe("a compaction that makes no progress", () => {
  it("is one that saves less than a fifth of the request", () => {
    expect(isNoProgress(12_000, 10_000)).toBe(true);
    expect(isNoProgress(12_000, 9_500)).toBe(false);
    expect(isNoProgress(0, 0)).toBe(true);
  });

  it("is not planned while the deterministic projection fits; the plan says so when asked", () => {
    // Small reads, then one large result in the active loop: the tail a cut must keep is most of the request.
    const { facts, add, call } = factLog();
    add({ role: "user", content: "Check the report." });
    for (let index = 0; index < 6; index++)
      call(`r${index}`, "read_file", { path: `a${index}.ts` }, "ok\n".repeat(30));
    call("big", "read_file", { path: "report.txt" }, "line of the report\n".repeat(1_030));
    const input = inputAt(
      { facts, profile: { maxInputTokens: 8_000 }, rewriteMinTokens: undefined },
      facts.length,
      null,
    );
    const before = project(input);
    expect(before.tokens).toBeGreaterThan(before.triggerTokens);
    expect(before.tokens).toBeLessThanOrEqual(before.limitTokens);
    const plan = planCompaction(input, { timeZone: "UTC", projection: before, noProgress: "plan" });
    expect(plan?.progress.noProgress).toBe(true);
    expect(plan?.progress.expectedTokensAfter).toBeGreaterThan(0.8 * before.tokens);
    expect(planCompaction(input, { timeZone: "UTC", projection: before })).toBeNull();
  });
});
