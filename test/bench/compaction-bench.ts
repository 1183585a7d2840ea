import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ChatMessage, StageSavings } from "@longrun/protocol";
import type { AdapterResult, BenchAdapter } from "./adapters/adapter.ts";
import { printBudgetTable, printSavings } from "./compaction-report.ts";
import { benchCorpus, type CorpusFile, callPoints, subsampleEvenly } from "./corpus.ts";
import { fits, keepsLastToolResults, keepsLatestUser, satisfiesI1 } from "./invariants.ts";
import { quantile, share } from "./stats.ts";
import { listTokens } from "./tokens.ts";

/** Options of one compaction bench run. */
export interface CompactionBenchOptions {
  budgets: number[];
  adapters: BenchAdapter[];
  /** Measured call points per file (evenly spread); the rest are skipped (or only walked, for stateful adapters). */
  samplesPerFile: number;
  corpus?: CorpusFile[];
  resultsFile?: string;
}

/** One measured call. */
interface CallRecord {
  file: string;
  end: number;
  ms: number;
  inputTokens: number;
  outputTokens: number;
  fits: boolean;
  i1: boolean;
  latestUser: boolean;
  last3: boolean;
  /** Nothing but (at most) the system prompt is left. */
  empty: boolean;
  needsCompaction?: boolean;
}

/** Aggregated figures of one adapter at one budget. */
export interface AdapterSummary {
  adapter: string;
  budget: number;
  targetsBudget: boolean;
  calls: number;
  medianMs: number;
  p95Ms: number;
  /** Calls whose raw prefix is over the budget (the ones where reduction has work): count and median. */
  overBudgetCalls: number;
  overBudgetMedianMs: number;
  fitShare: number;
  i1Broken: number;
  lostLatestUser: number;
  lostLast3: number;
  /** Outputs left with no conversation at all (only a system prompt, or nothing). */
  emptyOutputs: number;
  latestUserShare: number;
  last3Share: number;
  needsCompactionShare?: number;
  /** Sequential adapters: every call point walked, compactions made, their cost, exhausted calls. */
  walkedCalls?: number;
  compactions?: number;
  compactionMedianMs?: number;
  exhaustedCalls?: number;
}

/** Tokens saved per deterministic stage on one file's full transcript (longrun adapter). */
export interface FileSavings {
  file: string;
  budget: number;
  rawTokens: number;
  saved: StageSavings;
}

/** Adapters that can report stage savings on a full transcript. */
export interface SavingsSource {
  savings(messages: readonly ChatMessage[], budget: number): { rawTokens: number; saved: StageSavings };
}

function record(file: string, input: ChatMessage[], result: AdapterResult, budget: number): CallRecord {
  return {
    file,
    end: input.length,
    ms: result.ms,
    inputTokens: listTokens(input),
    outputTokens: listTokens(result.output),
    fits: fits(result.output, budget, listTokens),
    i1: satisfiesI1(result.output),
    latestUser: keepsLatestUser(input, result.output),
    last3: keepsLastToolResults(input, result.output, 3),
    empty: result.output.every((message) => message.role === "system"),
    ...(result.needsCompaction === undefined ? {} : { needsCompaction: result.needsCompaction }),
  };
}

/** What a stateful adapter did over every call point it walked (not only the sampled ones). */
interface WalkTotals {
  calls: number;
  compactions: number;
  compactionMs: number[];
  exhausted: number;
}

async function measure(
  adapter: BenchAdapter,
  corpus: CorpusFile[],
  budget: number,
  samplesPerFile: number,
): Promise<{ records: CallRecord[]; walked: WalkTotals }> {
  const records: CallRecord[] = [];
  const walked: WalkTotals = { calls: 0, compactions: 0, compactionMs: [], exhausted: 0 };
  for (const file of corpus) {
    const points = callPoints(file.messages);
    const sampled = new Set(subsampleEvenly(points, adapter.samplesPerFile ?? samplesPerFile));
    const prepared = adapter.prepare(file.messages, budget);
    for (const end of adapter.sequential ? points : [...sampled]) {
      const result = await prepared.call(end);
      walked.calls++;
      if (result.compacted) walked.compactions++;
      if (result.compactionMs !== undefined) walked.compactionMs.push(result.compactionMs);
      if (result.exhausted) walked.exhausted++;
      if (sampled.has(end)) records.push(record(file.name, file.messages.slice(0, end), result, budget));
    }
  }
  return { records, walked };
}

async function warmUp(adapter: BenchAdapter, corpus: CorpusFile[], budget: number): Promise<void> {
  const file = corpus.reduce((a, b) => (b.messages.length < a.messages.length ? b : a));
  const prepared = adapter.prepare(file.messages, budget);
  for (const end of callPoints(file.messages)) await prepared.call(end);
}

function summarize(
  adapter: BenchAdapter,
  budget: number,
  records: CallRecord[],
  walked: WalkTotals,
): AdapterSummary {
  const ms = records.map((entry) => entry.ms);
  const needs = records.filter((entry) => entry.needsCompaction !== undefined);
  return {
    adapter: adapter.name,
    budget,
    targetsBudget: adapter.targetsBudget,
    calls: records.length,
    medianMs: quantile(ms, 0.5),
    p95Ms: quantile(ms, 0.95),
    overBudgetCalls: records.filter((entry) => entry.inputTokens > budget).length,
    overBudgetMedianMs: quantile(
      records.filter((entry) => entry.inputTokens > budget).map((entry) => entry.ms),
      0.5,
    ),
    fitShare: share(records.map((entry) => entry.fits)),
    i1Broken: records.filter((entry) => !entry.i1).length,
    lostLatestUser: records.filter((entry) => !entry.latestUser).length,
    lostLast3: records.filter((entry) => !entry.last3).length,
    emptyOutputs: records.filter((entry) => entry.empty).length,
    latestUserShare: share(records.map((entry) => entry.latestUser)),
    last3Share: share(records.map((entry) => entry.last3)),
    ...(needs.length > 0
      ? { needsCompactionShare: share(needs.map((entry) => entry.needsCompaction === true)) }
      : {}),
    ...(adapter.sequential
      ? {
          walkedCalls: walked.calls,
          compactions: walked.compactions,
          compactionMedianMs: quantile(walked.compactionMs, 0.5),
          exhaustedCalls: walked.exhausted,
        }
      : {}),
  };
}

function hasSavings(adapter: BenchAdapter): adapter is BenchAdapter & SavingsSource {
  return typeof (adapter as Partial<SavingsSource>).savings === "function";
}

/** Run the compaction bench: tables per budget on stdout, full figures in the results file. */
export async function runCompactionBench(options: CompactionBenchOptions): Promise<AdapterSummary[]> {
  const corpus = options.corpus ?? (await benchCorpus());
  const all: AdapterSummary[] = [];
  const savings: FileSavings[] = [];
  const started = performance.now();
  for (const budget of options.budgets) {
    const summaries: AdapterSummary[] = [];
    let inputFit: boolean[] = [];
    for (const adapter of options.adapters) {
      await warmUp(adapter, corpus, budget);
      const { records, walked } = await measure(adapter, corpus, budget, options.samplesPerFile);
      if (adapter.samplesPerFile === undefined)
        inputFit = records.map((entry) => entry.inputTokens <= budget);
      summaries.push(summarize(adapter, budget, records, walked));
      if (hasSavings(adapter)) {
        for (const file of corpus)
          savings.push({ file: file.name, budget, ...adapter.savings(file.messages, budget) });
      }
    }
    printBudgetTable(budget, summaries, share(inputFit));
    all.push(...summaries);
  }
  printSavings(savings);
  const seconds = (performance.now() - started) / 1000;
  console.log(`\ncompaction bench: ${corpus.length} files, ${seconds.toFixed(1)} s`);
  const resultsFile = options.resultsFile ?? path.resolve(import.meta.dirname, "results/compaction.json");
  mkdirSync(path.dirname(resultsFile), { recursive: true });
  const payload = {
    createdAt: new Date().toISOString(),
    node: process.version,
    files: corpus.map((file) => ({
      name: file.name,
      messages: file.messages.length,
      callPoints: callPoints(file.messages).length,
    })),
    samplesPerFile: options.samplesPerFile,
    tokenRuler: "gpt-tokenizer o200k_base: content + tool call name/arguments + 4 per message",
    summaries: all,
    savings,
    seconds,
  };
  writeFileSync(resultsFile, `${JSON.stringify(payload, null, 2)}\n`);
  console.log(`results written to ${path.relative(process.cwd(), resultsFile)}`);
  return all;
}
