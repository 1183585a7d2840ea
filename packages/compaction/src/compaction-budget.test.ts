import { describe, expect, it } from "vitest";
import { ledgerBudgetTokens, summaryBudgetTokens } from "./compaction-budget.ts";

describe("compaction budgets", () => {
  it("asks a small window for a shorter summary, and gives part of it to the ledger", () => {
    // At 8k the summary's 400-token floor would be 5 % of the window, read again at every call.
    expect(summaryBudgetTokens({ maxInputTokens: 8_000 })).toBe(240);
    expect(ledgerBudgetTokens({ maxInputTokens: 8_000 })).toBe(512);
    // Together less than the 880 tokens of the 400 + 480 they replace.
    expect(
      summaryBudgetTokens({ maxInputTokens: 8_000 }) + ledgerBudgetTokens({ maxInputTokens: 8_000 }),
    ).toBe(752);
  });

  it("gives 16k and larger windows 1.5 % of the window for the summary (at least 240), the ledger 6 %", () => {
    // 16k: the 240-token floor is 1.5 % of the window (it was 320, a third more output per call).
    expect(summaryBudgetTokens({ maxInputTokens: 16_000 })).toBe(240);
    expect(summaryBudgetTokens({ maxInputTokens: 12_000 })).toBe(240);
    expect(summaryBudgetTokens({ maxInputTokens: 64_000 })).toBe(960);
    expect(ledgerBudgetTokens({ maxInputTokens: 16_000 })).toBe(960);
    expect(ledgerBudgetTokens({ maxInputTokens: 64_000 })).toBe(3_840);
  });

  it("never gives a tiny window more than its limit can afford", () => {
    // 4k: limit 3,200; the ledger's floor is 8 % of it, the summary at most a quarter of it.
    expect(ledgerBudgetTokens({ maxInputTokens: 4_000 })).toBe(256);
    expect(summaryBudgetTokens({ maxInputTokens: 4_000 })).toBe(120);
  });
});
