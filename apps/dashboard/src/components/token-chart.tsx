import { useMemo, useState } from "react";
import { formatDuration, formatTokens } from "../lib/format.ts";
import { CHART_WINDOW, type ChartPoint, chartGeometry } from "../state/chart-geometry.ts";
import type { CompactionNotice, Measurement } from "../state/thread-state.ts";

/** Room on the left for the token labels and at the bottom for the step labels. */
const BOX = { width: 320, height: 140, padding: 8 };
const AXIS = { left: 38, bottom: 16 };

/**
 * Projected (solid) and raw (dashed) tokens per step, the trigger and window lines, compactions as bars;
 * the x axis is in real steps with values on both axes. Hovering shows a step's figures and latency;
 * clicking picks that step (the transcript jumps to it). Long runs show the last 300 steps or all of them.
 */
export function TokenChart({
  measurements,
  compactions,
  onPickStep,
}: {
  measurements: readonly Measurement[];
  compactions: readonly CompactionNotice[];
  onPickStep?: (step: number) => void;
}) {
  const [zoom, setZoom] = useState<"recent" | "all">("recent");
  const geometry = useMemo(
    () =>
      chartGeometry(
        measurements,
        compactions,
        { width: BOX.width - AXIS.left, height: BOX.height - AXIS.bottom, padding: BOX.padding },
        zoom === "all" ? "all" : CHART_WINDOW,
      ),
    [measurements, compactions, zoom],
  );
  const [hover, setHover] = useState<ChartPoint | null>(null);
  const latestPoint = geometry.points[geometry.points.length - 1];
  const plotBottom = BOX.height - AXIS.bottom - BOX.padding;
  const nearest = (clientX: number, svg: SVGSVGElement) => {
    const bounds = svg.getBoundingClientRect();
    const x = ((clientX - bounds.left) / bounds.width) * BOX.width - AXIS.left;
    let best: ChartPoint | null = null;
    for (const point of geometry.points)
      if (!best || Math.abs(point.x - x) < Math.abs(best.x - x)) best = point;
    return best;
  };
  return (
    <figure className="token-chart">
      <div className="chart-tools">
        <button
          type="button"
          className="small"
          data-testid="chart-zoom"
          aria-pressed={zoom === "all"}
          disabled={measurements.length <= CHART_WINDOW}
          onClick={() => setZoom(zoom === "all" ? "recent" : "all")}
        >
          {zoom === "all" ? `Last ${CHART_WINDOW} steps` : "Whole run"}
        </button>
        <span className="muted small" data-testid="chart-readout" aria-live="polite">
          {hover
            ? `step ${hover.step}: ${formatTokens(hover.tokens)} projected, ${formatTokens(hover.rawTokens)} raw${hover.latencyMs === null ? "" : ` · took ${formatDuration(hover.latencyMs)}`}`
            : "hover for a step's figures; click to jump to it"}
        </span>
      </div>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents: the same steps are reachable in the transcript by keyboard */}
      <svg
        viewBox={`0 0 ${BOX.width} ${BOX.height}`}
        role="img"
        aria-label={`Context tokens over steps ${geometry.firstStep ?? "–"} to ${geometry.lastStep ?? "–"}, up to ${formatTokens(geometry.yTop)}`}
        data-testid="token-chart"
        data-points={geometry.points.length}
        data-compactions={geometry.compactionMarks.reduce((sum, mark) => sum + mark.count, 0)}
        data-marks={geometry.compactionMarks.length}
        onMouseMove={(event) => setHover(nearest(event.clientX, event.currentTarget))}
        onMouseLeave={() => setHover(null)}
        onClick={(event) => {
          const point = nearest(event.clientX, event.currentTarget);
          if (point) onPickStep?.(point.step);
        }}
      >
        <title>Context tokens over steps</title>
        <text className="chart-axis" x={AXIS.left - 3} y={BOX.padding + 3} textAnchor="end">
          {formatTokens(geometry.yTop)}
        </text>
        <text className="chart-axis" x={AXIS.left - 3} y={plotBottom} textAnchor="end">
          0
        </text>
        <text className="chart-axis" x={AXIS.left + BOX.padding} y={BOX.height - 2} textAnchor="start">
          {geometry.firstStep ?? ""}
        </text>
        <text className="chart-axis" x={BOX.width - BOX.padding} y={BOX.height - 2} textAnchor="end">
          {geometry.lastStep === null ? "" : `step ${geometry.lastStep}`}
        </text>
        <g transform={`translate(${AXIS.left} 0)`}>
          <line
            className="chart-axis-line"
            x1={BOX.padding}
            x2={BOX.padding}
            y1={BOX.padding}
            y2={plotBottom}
          />
          <line
            className="chart-axis-line"
            x1={BOX.padding}
            x2={BOX.width - AXIS.left - BOX.padding}
            y1={plotBottom}
            y2={plotBottom}
          />
          {geometry.maxY !== null && (
            <line
              className="chart-max"
              x1={BOX.padding}
              x2={BOX.width - AXIS.left - BOX.padding}
              y1={geometry.maxY}
              y2={geometry.maxY}
            />
          )}
          {geometry.triggerY !== null && (
            <line
              className="chart-trigger"
              x1={BOX.padding}
              x2={BOX.width - AXIS.left - BOX.padding}
              y1={geometry.triggerY}
              y2={geometry.triggerY}
            />
          )}
          {geometry.compactionMarks.map((mark) => (
            <line
              key={mark.key}
              className="chart-compaction"
              data-testid="chart-compaction-mark"
              data-count={mark.count}
              style={mark.count > 1 ? { strokeWidth: Math.min(4, 2 + Math.log2(mark.count)) } : undefined}
              x1={mark.x}
              x2={mark.x}
              y1={BOX.padding}
              y2={plotBottom}
            >
              <title>{mark.label}</title>
            </line>
          ))}
          <path className="chart-raw" d={geometry.rawPath} />
          <path className="chart-projected" d={geometry.projectedPath} />
          {latestPoint && (
            // The current size; with a single measurement it is the only thing drawn.
            <circle className="chart-latest" cx={latestPoint.x} cy={latestPoint.y} r={2.5} />
          )}
          {hover && (
            <>
              <line
                className="chart-crosshair"
                data-testid="chart-crosshair"
                x1={hover.x}
                x2={hover.x}
                y1={BOX.padding}
                y2={plotBottom}
              />
              <circle className="chart-latest" cx={hover.x} cy={hover.y} r={3} />
            </>
          )}
        </g>
      </svg>
      <figcaption className="muted small">
        <span className="legend-projected">projected</span> <span className="legend-raw">raw</span>{" "}
        <span className="legend-trigger">trigger</span> <span className="legend-compaction">compaction</span>
      </figcaption>
    </figure>
  );
}
