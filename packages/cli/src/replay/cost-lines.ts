import { basename } from "node:path";
import type { CostTotals, ForwardUseTotal, ProfileRatios } from "./cost-report.ts";

function ratio(value: number | null): string {
  return value === null ? "n/a" : value.toFixed(3);
}

function pair(ratios: ProfileRatios): string {
  return `${ratio(ratios.openai)} / ${ratio(ratios.anthropic)}`;
}

function tokens(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** The cost and forward-use lines printed under one transcript's replay. */
export function costLines(cost: CostTotals, forwardUse: ForwardUseTotal): string[] {
  const { longrun, plain } = cost;
  return [
    `  cost, billed-equivalent input tokens (openai / anthropic; cached 0.1, writes 1 / 1.25, summary output ×${cost.outputRatio}):`,
    `    longrun ${tokens(longrun.total.openai)} / ${tokens(longrun.total.anthropic)}, plain ${tokens(plain.total.openai)} / ${tokens(plain.total.anthropic)}; longrun ÷ plain ${pair(cost.ratio.total)}`,
    `    with the agent's own answers priced as output on both sides (${tokens(longrun.answerTokens)} tokens ×${cost.outputRatio}): longrun ÷ plain ${pair(cost.ratio.withAnswers)}`,
    `    main requests ÷ plain's ${pair(cost.ratio.main)}; summary calls ÷ plain's ${pair(cost.ratio.summaries)} (${longrun.summaryCalls} and ${plain.summaryCalls} calls)`,
    `    tokens, longrun / plain: main read from cache ${tokens(longrun.mainTokens.cacheRead)} / ${tokens(plain.mainTokens.cacheRead)}, written ${tokens(longrun.mainTokens.written)} / ${tokens(plain.mainTokens.written)}; summaries read ${tokens(longrun.summaryTokens.cacheRead)} / ${tokens(plain.summaryTokens.cacheRead)}, written ${tokens(longrun.summaryTokens.written)} / ${tokens(plain.summaryTokens.written)}, output ${tokens(longrun.summaryTokens.output)} / ${tokens(plain.summaryTokens.output)}`,
    `    compactions longrun ${longrun.compactions}, plain ${plain.compactions}; saving < 20 % of the request: ${longrun.smallCompactions} / ${plain.smallCompactions}; back-to-back: ${longrun.backToBackCompactions} / ${plain.backToBackCompactions}; no request sent: ${longrun.unsent} / ${plain.unsent}`,
    `  forward-use recall (identifiers of the next ${forwardUse.forwardN} assistant messages seen before, found in the request): whole ${ratio(forwardUse.whole)}, without the summarizer's text ${ratio(forwardUse.withoutSummary)} (mean over ${forwardUse.requests} requests)`,
  ];
}

/** One row of the pooled table: a transcript, or the pool. */
export interface CostRow {
  name: string;
  cost: CostTotals;
  forwardUse: ForwardUseTotal;
}

const COLUMNS = [
  ["transcript", 30],
  ["total oa", 9],
  ["total an", 9],
  ["main oa", 8],
  ["main an", 8],
  ["summ oa", 8],
  ["summ an", 8],
  ["+ans oa", 8],
  ["compactions", 12],
  ["fwd whole", 10],
  ["fwd w/o sum", 11],
] as const;

/** The table printed after several transcripts: longrun ÷ plain per file and pooled. */
export function costTable(rows: readonly CostRow[]): string[] {
  const line = (cells: string[]) =>
    `    ${cells.map((cell, column) => cell.padEnd(COLUMNS[column]?.[1] ?? 0)).join(" ")}`.trimEnd();
  return [
    `  longrun ÷ plain, billed-equivalent input and summary output (oa openai, an anthropic; output ×${rows[0]?.cost.outputRatio ?? "?"}; +ans: with the agent's answers as output); compactions longrun / plain; forward-use recall:`,
    line(COLUMNS.map(([title]) => title)),
    ...rows.map(({ name, cost, forwardUse }) =>
      line([
        basename(name)
          .replace(/\.jsonl$/, "")
          .slice(0, 30),
        ratio(cost.ratio.total.openai),
        ratio(cost.ratio.total.anthropic),
        ratio(cost.ratio.main.openai),
        ratio(cost.ratio.main.anthropic),
        ratio(cost.ratio.summaries.openai),
        ratio(cost.ratio.summaries.anthropic),
        ratio(cost.ratio.withAnswers.openai),
        `${cost.longrun.compactions} / ${cost.plain.compactions}`,
        ratio(forwardUse.whole),
        ratio(forwardUse.withoutSummary),
      ]),
    ),
  ];
}
