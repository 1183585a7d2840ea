import { beforeAll, describe, expect, it } from "vitest";
import type { BenchAdapter } from "./adapters/adapter.ts";
import { longrunDeterministicAdapter, longrunWithCompactionAdapter } from "./adapters/longrun.ts";
import { installBenchLibraries } from "./bench-libraries.ts";
import { type CorpusFile, callPoints, simCorpus } from "./corpus.ts";
import { fits, keepsLatestUser, satisfiesI1 } from "./invariants.ts";
import { listTokens } from "./tokens.ts";

// The compared libraries are installed on first use (bench-libraries.ts), before their adapters load.
await installBenchLibraries();
const { createClearToolUsesAdapter } = await import("./libraries/clear-tool-uses.ts");
const { pruneMessagesAdapter } = await import("./libraries/prune-messages.ts");
const { createTrimMessagesAdapter } = await import("./libraries/trim-messages.ts");

// A short sim explorer session keeps this fast; a 4k budget forces every method to act.
let file: CorpusFile;
const BUDGET = 4_000;

beforeAll(async () => {
  const corpus = await simCorpus(12);
  file = corpus.find((entry) => entry.name === "sim-explorer") as CorpusFile;
});

async function walk(adapter: BenchAdapter) {
  const prepared = adapter.prepare(file.messages, BUDGET);
  const outcomes = [];
  for (const end of callPoints(file.messages)) {
    const input = file.messages.slice(0, end);
    const result = await prepared.call(end);
    outcomes.push({ input, result, tokens: listTokens(input) });
  }
  return outcomes;
}

describe("bench adapters on a sim transcript", () => {
  const adapters = [
    createTrimMessagesAdapter("cached"),
    createClearToolUsesAdapter("per-call"),
    pruneMessagesAdapter,
    longrunDeterministicAdapter,
    longrunWithCompactionAdapter,
  ];
  for (const adapter of adapters) {
    it(`${adapter.name}: valid outputs, timed`, async () => {
      const outcomes = await walk(adapter);
      expect(outcomes.length).toBeGreaterThan(5);
      expect(outcomes.some((outcome) => outcome.tokens > BUDGET)).toBe(true);
      for (const { result } of outcomes) {
        expect(satisfiesI1(result.output)).toBe(true);
        expect(result.ms).toBeGreaterThanOrEqual(0);
      }
    });
  }

  it("trimMessages fits the budget; longrun with compaction keeps the task and compacts", async () => {
    const trimmed = await walk(createTrimMessagesAdapter("per-call"));
    expect(trimmed.every(({ result }) => fits(result.output, BUDGET, listTokens))).toBe(true);
    const compacted = await walk(longrunWithCompactionAdapter);
    expect(compacted.some(({ result }) => result.compacted)).toBe(true);
    expect(compacted.every(({ input, result }) => keepsLatestUser(input, result.output))).toBe(true);
  });
});
