import { type CostTotals, type ForwardUseTotal, forwardUseTotalOf, pooledCostOf } from "./cost-report.ts";
import { type ReplayReport, type ReplayStep, type RetentionTotal, retentionTotals } from "./report.ts";
import { RETENTION_CATEGORIES, type RetentionCategory } from "./retention.ts";

/** Figures over several replays at one window (DIR/summary.json of a multi-transcript run). */
export interface ReplaySummary {
  maxInputTokens: number;
  transcripts: number;
  calls: number;
  compactions: number;
  /**
   * Background summaries over every transcript: asked for past the early line and made (`started`), and
   * applied by a compaction with no summary call of its own (`applied`); the rest were discarded.
   */
  background: { started: number; applied: number };
  exhausted: number;
  exhaustedVerbatimFits: number;
  /** Retention over every request after the first compaction of every transcript. */
  retention: Record<RetentionCategory, RetentionTotal>;
  /** Ledger entries of every compaction that claim an outcome their result does not show. */
  unshownOutcomes: number;
  /** Ledger size per compaction (tokens), as a distribution; null without ledgers. */
  ledgerTokens: Distribution | null;
  /** Cacheable-prefix and append-only shares per transcript, and their median and worst file. */
  cache: CacheSummary;
  /** Billed-equivalent cost against the plain strategy: per transcript, and summed over them. */
  cost: { files: { transcript: string; cost: CostTotals }[]; pooled: CostTotals };
  /** Forward-use recall per transcript, and the mean over every request of every transcript. */
  forwardUse: { files: { transcript: string; forwardUse: ForwardUseTotal }[]; pooled: ForwardUseTotal };
}

/** One transcript's cache totals. */
export interface FileCache {
  transcript: string;
  cacheableShare: number | null;
  appendOnlyShare: number | null;
  ratio: number | null;
  rewrites: number;
  steps: number;
}

/** Median and worst (lowest) file of each cache figure. */
export interface CacheSummary {
  files: FileCache[];
  cacheableShare: { median: number; worst: number } | null;
  appendOnlyShare: { median: number; worst: number } | null;
  ratio: { median: number; worst: number } | null;
}

function medianWorst(values: readonly (number | null)[]): { median: number; worst: number } | null {
  const present = values.filter((value): value is number => value !== null).sort((a, b) => a - b);
  if (present.length === 0) return null;
  const middle = Math.floor(present.length / 2);
  const median =
    present.length % 2 === 1
      ? (present[middle] as number)
      : ((present[middle - 1] as number) + (present[middle] as number)) / 2;
  return { median, worst: present[0] as number };
}

/** Cache figures of several replays: per file, then median and worst file. */
export function cacheSummaryOf(reports: readonly ReplayReport[]): CacheSummary {
  const files = reports.map((report) => ({
    transcript: report.transcript,
    cacheableShare: report.totals.cache.cacheableShare,
    appendOnlyShare: report.totals.cache.appendOnlyShare,
    ratio: report.totals.cache.ratio,
    rewrites: report.totals.cache.rewrites,
    steps: report.totals.cache.steps,
  }));
  return {
    files,
    cacheableShare: medianWorst(files.map((file) => file.cacheableShare)),
    appendOnlyShare: medianWorst(files.map((file) => file.appendOnlyShare)),
    ratio: medianWorst(files.map((file) => file.ratio)),
  };
}

/** Quantiles of a list of numbers. */
export interface Distribution {
  count: number;
  min: number;
  median: number;
  p90: number;
  max: number;
}

/** Quantiles of `values` (nearest rank), or null when empty. */
export function distributionOf(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
  return {
    count: sorted.length,
    min: sorted[0] as number,
    median: rank(0.5),
    p90: rank(0.9),
    max: sorted[sorted.length - 1] as number,
  };
}

/** Pools the reports of several transcripts replayed at the same window. */
export function summarizeReplays(reports: readonly ReplayReport[]): ReplaySummary {
  const steps: ReplayStep[] = reports.flatMap((report) => report.steps);
  const retention = retentionTotals(steps);
  const ledgerTokens = steps.flatMap((step) =>
    step.compaction?.ledgerTokens === undefined ? [] : [step.compaction.ledgerTokens],
  );
  return {
    maxInputTokens: reports[0]?.maxInputTokens ?? 0,
    transcripts: reports.length,
    calls: steps.length,
    compactions: reports.reduce((sum, report) => sum + report.totals.compactions, 0),
    background: {
      started: reports.reduce((sum, report) => sum + report.totals.background.started, 0),
      applied: reports.reduce((sum, report) => sum + report.totals.background.applied, 0),
    },
    exhausted: reports.reduce((sum, report) => sum + report.totals.exhausted, 0),
    exhaustedVerbatimFits: reports.reduce((sum, report) => sum + report.totals.exhaustedVerbatimFits, 0),
    retention,
    unshownOutcomes: reports.reduce((sum, report) => sum + report.totals.unshownOutcomes, 0),
    ledgerTokens: distributionOf(ledgerTokens),
    cache: cacheSummaryOf(reports),
    cost: {
      files: reports.map((report) => ({ transcript: report.transcript, cost: report.totals.cost })),
      pooled: pooledCostOf(reports.map((report) => report.totals.cost)),
    },
    forwardUse: {
      files: reports.map((report) => ({
        transcript: report.transcript,
        forwardUse: report.totals.forwardUse,
      })),
      pooled: forwardUseTotalOf(
        steps.flatMap((step) => (step.forwardUse ? [step.forwardUse] : [])),
        reports[0]?.totals.forwardUse.forwardN ?? 0,
      ),
    },
  };
}

const LABELS: Record<RetentionCategory, string> = {
  filesWritten: "files created/written/edited",
  filesRead: `last 10 files read`,
  lastError: "last failing result's line",
  todos: "TODO items",
};

function percent(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)} %`;
}

/** The retention lines printed after a replay (one transcript or several). */
export function retentionLines(retention: Record<RetentionCategory, RetentionTotal>): string[] {
  return RETENTION_CATEGORIES.map((category) => {
    const figure = retention[category];
    const detail =
      figure.requests === 0
        ? "no such facts"
        : `mean over ${figure.requests} requests, min ${percent(figure.min)}; ${figure.present}/${figure.total} facts`;
    return `    ${LABELS[category].padEnd(30)} ${percent(figure.mean).padStart(8)}  (${detail})`;
  });
}
