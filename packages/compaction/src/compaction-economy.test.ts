import { describe, expect, it } from "vitest";
import {
  compactionEconomy,
  type EconomyInput,
  economicLineTokens,
  isNoProgress,
  MIN_ECONOMIC_GAIN,
} from "./compaction-economy.ts";
import { compactionLineTokens, decideCompaction, ECONOMIC_FLOOR_SHARE } from "./compaction-need.ts";
import { planCompaction } from "./plan-compaction.ts";
import { project } from "./project.ts";
import { projectionReason } from "./projection-reason.ts";
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

/** A 64k window: trigger 49,152; a compaction lands near 10,000; a call adds about 600 tokens. */
const at64k: EconomyInput = {
  deterministicTokens: 30_000,
  deterministicResent: 0,
  continuationTokens: 30_000,
  summaryInstructionTokens: 300,
  summaryOutputTokens: 1_280,
  compactedTokens: 10_000,
  growthPerCall: 600,
  triggerTokens: 49_152,
};

describe("the economic line", () => {
  it("is where a cycle's cost per call is least: the compacted size plus √(2·K·g / cache-read price)", () => {
    // K: the summary call (3,000 read from cache, 300 written, 1,280 × 4 output) and the new request
    // written instead of read (10,000 × 0.9): 17,420. X* = 10,000 + √(2 · 17,420 · 600 / 0.1).
    const oneTime = 3_000 + 300 + 5_120 + 9_000;
    const line = economicLineTokens(at64k);
    expect(line).toBe(Math.round(10_000 + Math.sqrt((2 * oneTime * 600) / 0.1)));
    // At X*, a cycle's cost per call equals reading X* once: no other end of the cycle is cheaper.
    const perCall = (end: number) => (oneTime * 600) / (end - 10_000) + (0.1 * (10_000 + end)) / 2;
    const atLine = perCall(line as number);
    expect(atLine).toBeCloseTo(0.1 * (line as number), 0);
    for (const end of [20_000, 30_000, 40_000, 49_152]) expect(perCall(end)).toBeGreaterThan(atLine);
  });

  it("does not exist where the optimum is past the trigger or saves too little against it", () => {
    // 16k: a summary call weighs more against what it saves; X* is over the 12,000 trigger.
    expect(economicLineTokens(at16k)).toBeNull();
    // Just under the trigger, cycles to X* save less than MIN_ECONOMIC_GAIN per call.
    const near = { ...at64k, growthPerCall: 2_500 };
    const line = Math.round(10_000 + Math.sqrt((2 * 17_420 * 2_500) / 0.1));
    expect(line).toBeLessThan(at64k.triggerTokens);
    expect(MIN_ECONOMIC_GAIN).toBeGreaterThan(0);
    expect(economicLineTokens(near)).toBeNull();
    // Without a cache discount there is nothing to save by compacting early.
    expect(economicLineTokens({ ...at64k, prices: { cacheRead: 0, cacheWrite: 1, output: 4 } })).toBeNull();
  });
});

describe("must, cheaper, or no compaction", () => {
  const limits = thresholds({ maxInputTokens: 16_000 });
  const item = (
    role: "system" | "user" | "assistant" | "tool",
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
    compacted: false,
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
    // Six calls of 2,000 tokens: a compaction buys only a few calls before the next one.
    const heavy = Array.from({ length: 12 }, (_, index) =>
      item(index % 2 === 0 ? "assistant" : "tool", 1_000),
    );
    const input = {
      ...base,
      raw: heavy,
      must: false,
      tokens: 12_300,
      resentTokens: 0,
      extensionTokens: 12_300,
    };
    expect(decideCompaction(input)).toBeNull();
    // The same request after many small calls: a compaction repays itself over the calls it buys.
    expect(decideCompaction({ ...input, raw })).toMatchObject({ need: "cheaper" });
  });

  describe("on a large window, once the thread has compacted", () => {
    const limits64k = thresholds({ maxInputTokens: 64_000 });
    const at = (extensionTokens: number, compacted = true) => ({
      ...base,
      profile: { maxInputTokens: 64_000 },
      limits: limits64k,
      header: [item("system", 800, "system"), item("user", 600, "pinned"), item("user", 3_000, "summary")],
      compacted,
      must: false,
      tokens: extensionTokens,
      resentTokens: 0,
      extensionTokens,
    });

    it("compacts past the economic line, short of the trigger, and says what it expects to save", () => {
      const line = compactionLineTokens(at(30_000));
      expect(line).toBeGreaterThanOrEqual(Math.floor(64_000 * ECONOMIC_FLOOR_SHARE));
      expect(line).toBeLessThan(limits64k.triggerTokens);
      expect(decideCompaction(at(line - 1))).toBeNull();
      const decision = decideCompaction(at(line + 500));
      expect(decision).toMatchObject({ need: "cheaper" });
      expect(decision?.expectedSaving).toBeGreaterThan(0);
      const reason = projectionReason({
        tokens: line + 500,
        limits: limits64k,
        ran: [],
        needsCompaction: true,
        rewriteReason: undefined,
        compactionInstead: false,
        decision,
        lineTokens: line,
      });
      expect(reason).toBe(
        `${line + 500} tokens, past the compaction line ${line} (trigger ${limits64k.triggerTokens}): compacting now costs less per call than growing to the trigger (expected saving ${decision?.expectedSaving} input-token equivalents)`,
      );
    });

    it("never compacts below the floor share of the window", () => {
      // 24 calls of 500 tokens: the optimum alone would be well under half the window.
      const floor = Math.floor(64_000 * ECONOMIC_FLOOR_SHARE);
      expect(compactionLineTokens(at(20_000))).toBe(floor);
      expect(decideCompaction(at(floor - 1))).toBeNull();
    });

    it("waits for the trigger before the first compaction", () => {
      expect(compactionLineTokens(at(40_000, false))).toBe(limits64k.triggerTokens);
      expect(decideCompaction(at(40_000, false))).toBeNull();
    });
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
