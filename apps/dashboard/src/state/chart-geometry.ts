import type { CompactionNotice, Measurement } from "./thread-state.ts";

export interface ChartBox {
  width: number;
  height: number;
  padding: number;
}

export interface ChartGeometry {
  projectedPath: string;
  rawPath: string;
  points: { x: number; y: number; step: number; tokens: number }[];
  triggerY: number | null;
  maxY: number | null;
  compactionMarks: { x: number; key: string; label: string }[];
  yTop: number;
}

/** The most recent points the chart draws; older ones scroll off. */
export const CHART_WINDOW = 300;

/** Lays out tokens over steps: projected and raw lines, the trigger and window lines, compaction marks. */
export function chartGeometry(
  measurements: readonly Measurement[],
  compactions: readonly CompactionNotice[],
  box: ChartBox,
): ChartGeometry {
  const series = measurements.slice(-CHART_WINDOW);
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
  const xOf = (index: number) =>
    box.padding + (series.length <= 1 ? innerWidth / 2 : (index / (series.length - 1)) * innerWidth);
  const yOf = (tokens: number) => box.padding + innerHeight - (tokens / yTop) * innerHeight;
  const points = series.map((point, index) => ({
    x: round(xOf(index)),
    y: round(yOf(point.projectedTokens)),
    step: point.step,
    tokens: point.projectedTokens,
  }));
  const rawPoints = series.map((point, index) => ({ x: round(xOf(index)), y: round(yOf(point.rawTokens)) }));
  const firstSeq = series[0]?.eventSeq ?? Number.NEGATIVE_INFINITY;
  const compactionMarks = compactions
    .filter((notice) => notice.phase === "completed" && notice.eventSeq >= firstSeq && series.length > 0)
    .map((notice) => {
      // Between the last measurement before the compaction and the first after it.
      const before = series.filter((point) => point.eventSeq < notice.eventSeq).length - 1;
      const position = Math.min(Math.max(before + 0.5, 0), series.length - 1);
      const x = series.length <= 1 ? xOf(0) : box.padding + (position / (series.length - 1)) * innerWidth;
      return {
        x: round(x),
        key: notice.key,
        label: `${notice.strategy ?? ""} ${notice.trigger}: ${notice.tokensBefore} → ${notice.tokensAfter ?? "?"}`,
      };
    });
  return {
    projectedPath: pathOf(points),
    rawPath: pathOf(rawPoints),
    points,
    triggerY: trigger === null ? null : round(yOf(trigger)),
    maxY: maxInput === null ? null : round(yOf(maxInput)),
    compactionMarks,
    yTop,
  };
}

function pathOf(points: readonly { x: number; y: number }[]): string {
  return points.map((point, index) => `${index === 0 ? "M" : "L"}${point.x},${point.y}`).join(" ");
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
