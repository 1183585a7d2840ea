import { useMemo } from "react";
import { formatTokens } from "../lib/format.ts";
import { chartGeometry } from "../state/chart-geometry.ts";
import type { CompactionNotice, Measurement } from "../state/thread-state.ts";

const BOX = { width: 320, height: 120, padding: 8 };

/** Projected (solid) and raw (dashed) tokens per step, trigger and window lines, compactions as bars. */
export function TokenChart({
  measurements,
  compactions,
}: {
  measurements: readonly Measurement[];
  compactions: readonly CompactionNotice[];
}) {
  const geometry = useMemo(() => chartGeometry(measurements, compactions, BOX), [measurements, compactions]);
  const first = measurements[Math.max(0, measurements.length - 300)];
  const last = measurements[measurements.length - 1];
  const latestPoint = geometry.points[geometry.points.length - 1];
  return (
    <figure className="token-chart">
      <svg
        viewBox={`0 0 ${BOX.width} ${BOX.height}`}
        role="img"
        data-testid="token-chart"
        data-points={geometry.points.length}
        data-compactions={geometry.compactionMarks.length}
      >
        <title>Context tokens over steps</title>
        {geometry.maxY !== null && (
          <line
            className="chart-max"
            x1={BOX.padding}
            x2={BOX.width - BOX.padding}
            y1={geometry.maxY}
            y2={geometry.maxY}
          />
        )}
        {geometry.triggerY !== null && (
          <line
            className="chart-trigger"
            x1={BOX.padding}
            x2={BOX.width - BOX.padding}
            y1={geometry.triggerY}
            y2={geometry.triggerY}
          />
        )}
        {geometry.compactionMarks.map((mark) => (
          <line
            key={mark.key}
            className="chart-compaction"
            data-testid="chart-compaction-mark"
            x1={mark.x}
            x2={mark.x}
            y1={BOX.padding}
            y2={BOX.height - BOX.padding}
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
      </svg>
      <figcaption className="muted small">
        steps {first?.step ?? "–"}–{last?.step ?? "–"} · scale {formatTokens(geometry.yTop)} ·{" "}
        <span className="legend-projected">projected</span> <span className="legend-raw">raw</span>{" "}
        <span className="legend-trigger">trigger</span> <span className="legend-compaction">compaction</span>
      </figcaption>
    </figure>
  );
}
