import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { createTokenizer, LEDGER_FOOTER, LEDGER_HEADER } from "@longrun/compaction";
import { runScriptedAgent } from "./scripted-agent-run.ts";
import { renderTable } from "./stats.ts";

// How often one agent compacts, per 100 model steps, with the default scripted sim agent in embedded
// mode (in-process queue, libSQL file, sim model over HTTP). Issue 12: at small windows the fixed
// overhead after a compaction (tools, summary, ledger, restored files) must leave room to work.

const tokenizer = createTokenizer("o200k_base");

/** Tokens of the ledger block inside a summary message. */
function ledgerTokens(content: unknown): number {
  const text = typeof content === "string" ? content : "";
  const start = text.indexOf(LEDGER_HEADER);
  const end = text.indexOf(LEDGER_FOOTER, start);
  return start < 0 || end < 0 ? 0 : tokenizer.count(text.slice(start, end + LEDGER_FOOTER.length));
}

const RESULTS = fileURLToPath(new URL("./results/compaction-rate.json", import.meta.url));

export interface CompactionRateFigures {
  maxInputTokens: number;
  simSteps: number;
  steps: number;
  compactions: number;
  compactionsPer100Steps: number;
  /** Projected tokens right after each compaction, as a share of the window. */
  afterCompactionShare: { median: number; max: number };
  /** Compactions that had to shrink something to fit (restored files, summary, ledger). */
  shrunk: number;
  /** Ledger block size per compaction, as a share of the window (max). */
  maxLedgerShare: number;
  exhausted: boolean;
}

async function runOne(maxInputTokens: number, simSteps: number): Promise<CompactionRateFigures> {
  return runScriptedAgent({ maxInputTokens, simSteps }, async ({ end, rootAgentId, store }) => {
    const compactions = await store.compactions.list(rootAgentId);
    const shares = compactions.map((event) => event.tokensAfter / maxInputTokens).sort((a, b) => a - b);
    const steps = (await store.messages.list(rootAgentId, { afterSeq: -1 })).filter(
      (fact) => fact.role === "assistant",
    ).length;
    return {
      maxInputTokens,
      simSteps,
      steps,
      compactions: compactions.length,
      compactionsPer100Steps: (compactions.length / Math.max(1, steps)) * 100,
      afterCompactionShare: {
        median: shares[Math.floor(shares.length / 2)] ?? 0,
        max: shares[shares.length - 1] ?? 0,
      },
      shrunk: compactions.filter((event) => (event.shrunk ?? []).length > 0).length,
      maxLedgerShare: Math.max(
        0,
        ...compactions.map((event) => ledgerTokens(event.summaryMessage.content) / maxInputTokens),
      ),
      exhausted: end === "run.failed",
    };
  });
}

/** Compactions per 100 steps of one agent at each window (default: 8k and 16k, 120 sim steps). */
export async function runCompactionRateBench(
  options: { windows?: number[]; simSteps?: number } = {},
): Promise<CompactionRateFigures[]> {
  const figures: CompactionRateFigures[] = [];
  for (const window of options.windows ?? [8_000, 16_000]) {
    figures.push(await runOne(window, options.simSteps ?? 120));
  }
  console.log(
    renderTable(
      [
        "window",
        "steps",
        "compactions",
        "compactions/100 steps",
        "after compaction (median / max of window)",
        "shrunk",
        "ledger max",
        "run",
      ],
      figures.map((row) => [
        String(row.maxInputTokens),
        String(row.steps),
        String(row.compactions),
        row.compactionsPer100Steps.toFixed(1),
        `${(row.afterCompactionShare.median * 100).toFixed(0)} % / ${(row.afterCompactionShare.max * 100).toFixed(0)} %`,
        String(row.shrunk),
        `${(row.maxLedgerShare * 100).toFixed(1)} %`,
        row.exhausted ? "failed" : "completed",
      ]),
    ),
  );
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify({ measuredAt: new Date().toISOString(), figures }, null, 2)}\n`);
  return figures;
}
