import type { CompactionNotice, Measurement } from "./thread-state.ts";

export interface ChartBox {
  width: number;
  height: number;
  padding: number;
}

export interface ChartPoint {
  x: number;
  y: number;
  step: number;
  tokens: number;
  rawTokens: number;
  /** Time since the previous measurement: how long the step before this one took (null for the first). */
  latencyMs: number | null;
}

export interface ChartGeometry {
  projectedPath: string;
  rawPath: string;
  points: ChartPoint[];
  triggerY: number | null;
  maxY: number | null;
  /** Compactions closer than MARK_GAP_PX are one mark with their count: 1,000 stay readable. */
  compactionMarks: { x: number; key: string; label: string; count: number }[];
  yTop: number;
  /** First and last step drawn: the x axis is in real steps, not in positions. */
  firstStep: number | null;
  lastStep: number | null;
}

/** Compaction marks closer than this (in chart units) are drawn as one, with their count. */
export const MARK_GAP_PX = 4;

/** Points drawn at most when the whole run is shown; longer series keep every n-th point. */
export const MAX_POINTS = 600;

/** The most recent points the chart draws; older ones scroll off. */
export const CHART_WINDOW = 300;

/** Lays out tokens over steps: projected and raw lines, the trigger and window lines, compaction marks. */
export function chartGeometry(
  measurements: readonly Measurement[],
  compactions: readonly CompactionNotice[],
  box: ChartBox,
  window: number | "all" = CHART_WINDOW,
): ChartGeometry {
  const latencies = new Map<number, number | null>();
  measurements.forEach((point, index) => {
    const previous = measurements[index - 1];
    latencies.set(point.eventSeq, previous ? point.at - previous.at : null);
  });
  const shown = window === "all" ? measurements : measurements.slice(-window);
  const stride = Math.ceil(shown.length / MAX_POINTS);
  const series =
    stride <= 1 ? shown : shown.filter((_, index) => index % stride === 0 || index === shown.length - 1);
  const last = series[series.length - 1];
  const maxInput = last?.maxInputTokens ?? null;
  const trigger = last?.triggerTokens ?? null;
  const highest = Math.max(
    1,
    maxInput ?? 0,
    trigger ?? 0,
    ...series.map((point) => Math.max(point.rawTokens, point.projectedTokens)),
  );
  const yTop = Math.ceil(highest * 1.05);
  const innerWidth = box.width - box.padding * 2;
  const innerHeight = box.height - box.padding * 2;
  // Steps are the seq of the agent's last fact and only grow; apply-events already lifts old measurements
  // that said 0 after a compaction, and this keeps the axis from folding back on any other lower one.
  const steps: number[] = [];
  for (const point of series) steps.push(Math.max(point.step, steps[steps.length - 1] ?? point.step));
  const firstStep = steps[0] ?? 0;
  const lastStep = steps[steps.length - 1] ?? 0;
  const span = lastStep - firstStep;
  // x is the step itself: gaps (sub-agent turns, compactions) show as gaps, not as even spacing.
  const xAt = (step: number) =>
    box.padding + (span <= 0 ? innerWidth / 2 : ((step - firstStep) / span) * innerWidth);
  const xOf = (index: number) => xAt(steps[index] ?? firstStep);
  const yOf = (tokens: number) => box.padding + innerHeight - (tokens / yTop) * innerHeight;
  const points = series.map((point, index) => ({
    x: round(xOf(index)),
    y: round(yOf(point.projectedTokens)),
    step: point.step,
    tokens: point.projectedTokens,
    rawTokens: point.rawTokens,
    latencyMs: latencies.get(point.eventSeq) ?? null,
  }));
  const rawPoints = series.map((point, index) => ({ x: round(xOf(index)), y: round(yOf(point.rawTokens)) }));
  const firstSeq = series[0]?.eventSeq ?? Number.NEGATIVE_INFINITY;
  const singleMarks = compactions
    .filter((notice) => notice.phase === "completed" && notice.eventSeq >= firstSeq && series.length > 0)
    .map((notice) => {
      // Between the last measurement before the compaction and the first after it.
      const before = series.filter((point) => point.eventSeq < notice.eventSeq).length - 1;
      const left = steps[Math.max(before, 0)] ?? firstStep;
      const right = steps[Math.min(before + 1, series.length - 1)] ?? left;
      const x = series.length <= 1 ? xOf(0) : xAt(before < 0 ? firstStep : (left + right) / 2);
      return {
        x: round(x),
        key: notice.key,
        label: `${notice.strategy ?? ""} ${notice.trigger}: ${notice.tokensBefore} → ${notice.tokensAfter ?? "?"}`,
      };
    });
  const compactionMarks: ChartGeometry["compactionMarks"] = [];
  for (const mark of singleMarks.sort((left, right) => left.x - right.x)) {
    const previous = compactionMarks[compactionMarks.length - 1];
    if (previous && mark.x - previous.x < MARK_GAP_PX) {
      previous.count++;
      previous.label = `${previous.count} compactions here`;
    } else compactionMarks.push({ ...mark, count: 1 });
  }
  return {
    projectedPath: pathOf(points),
    rawPath: pathOf(rawPoints),
    points,
    triggerY: trigger === null ? null : round(yOf(trigger)),
    maxY: maxInput === null ? null : round(yOf(maxInput)),
    compactionMarks,
    yTop,
    firstStep: series.length > 0 ? firstStep : null,
    lastStep: series.length > 0 ? lastStep : null,
  };
}

function pathOf(points: readonly { x: number; y: number }[]): string {
  return points.map((point, index) => `${index === 0 ? "M" : "L"}${point.x},${point.y}`).join(" ");
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
