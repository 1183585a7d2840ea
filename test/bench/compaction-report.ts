import type { AdapterSummary, FileSavings } from "./compaction-bench.ts";
import { formatMs, formatShare, renderTable } from "./stats.ts";

/** The bench table of one budget: quality and speed per adapter. */
export function printBudgetTable(budget: number, summaries: AdapterSummary[], inputFitShare: number): void {
  console.log(
    `\n== budget ${budget.toLocaleString("en-US")} tokens (raw prefix fits: ${formatShare(inputFitShare)}) ==`,
  );
  const rows = summaries.map((entry) => [
    entry.adapter,
    entry.targetsBudget ? "yes" : "no",
    String(entry.calls),
    formatMs(entry.medianMs),
    formatMs(entry.p95Ms),
    formatShare(entry.fitShare),
    String(entry.emptyOutputs),
    String(entry.i1Broken),
    `${entry.lostLatestUser} (${formatShare(entry.latestUserShare)} kept)`,
    `${entry.lostLast3} (${formatShare(entry.last3Share)} kept)`,
    entry.needsCompactionShare === undefined ? "" : formatShare(entry.needsCompactionShare),
  ]);
  const header = [
    "method",
    "budget?",
    "calls",
    "median",
    "p95",
    "fit",
    "empty",
    "I1 broken",
    "lost latest user",
    "lost ≥1 of last 3 results",
    "needs LLM",
  ];
  console.log(renderTable(header, rows));
  for (const entry of summaries) {
    if (entry.compactions === undefined) continue;
    console.log(
      `${entry.adapter}: walked all ${entry.walkedCalls} call points, ${entry.compactions} compactions ` +
        `(plan + re-projection median ${formatMs(entry.compactionMedianMs ?? Number.NaN)}, summarizer excluded), ` +
        `${entry.exhaustedCalls} calls verifyProjection marked context_exhausted`,
    );
  }
  printOverBudget(summaries);
  const libraries = summaries.filter((entry) => entry.targetsBudget && !entry.adapter.startsWith("longrun"));
  const fastest = libraries.reduce<AdapterSummary | null>(
    (best, entry) => (best === null || entry.medianMs < best.medianMs ? entry : best),
    null,
  );
  if (fastest === null) return;
  for (const entry of summaries.filter((item) => item.adapter.startsWith("longrun"))) {
    const ratio = fastest.medianMs / entry.medianMs;
    console.log(
      `speed: ${entry.adapter} median is ${ratio >= 1 ? `${ratio.toFixed(1)}x faster` : `${(1 / ratio).toFixed(1)}x slower`} than the fastest budget-targeting library (${fastest.adapter}, ${formatMs(fastest.medianMs)})`,
    );
  }
}

/** Per-call cost on over-budget prefixes, each longrun method against the langchain baselines of the same run. */
function printOverBudget(summaries: AdapterSummary[]): void {
  const baselines = summaries.filter(
    (entry) => entry.adapter.startsWith("langchain") && entry.adapter.includes("cached counts"),
  );
  for (const entry of summaries.filter((item) => item.adapter.startsWith("longrun"))) {
    const ratios = baselines.map(
      (base) =>
        `${(entry.overBudgetMedianMs / base.overBudgetMedianMs).toFixed(3)}x ${base.adapter} (${formatMs(base.overBudgetMedianMs)})`,
    );
    console.log(
      `over-budget prefixes (${entry.overBudgetCalls} calls): ${entry.adapter} median ${formatMs(entry.overBudgetMedianMs)} per call = ${ratios.join(", ")}`,
    );
  }
}

/** What each longrun stage saved, per corpus file. */
export function printSavings(savings: FileSavings[]): void {
  if (savings.length === 0) return;
  console.log("\n== longrun deterministic stages: tokens saved on each full transcript ==");
  const rows = savings.map((entry) => [
    entry.file,
    entry.budget.toLocaleString("en-US"),
    entry.rawTokens.toLocaleString("en-US"),
    entry.saved.collapse.toLocaleString("en-US"),
    entry.saved.truncate.toLocaleString("en-US"),
    entry.saved.microcompact.toLocaleString("en-US"),
  ]);
  console.log(renderTable(["file", "budget", "raw tokens", "collapse", "truncate", "microcompact"], rows));
}
