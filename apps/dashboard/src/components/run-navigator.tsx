import { type CSSProperties, type KeyboardEvent, memo, useState } from "react";
import { binLabel, type NavBin, type NavMark, STEP_MEANING } from "../state/navigator.ts";

/** Where the transcript should go: a step (the first message at or after it), or an entry by key. */
export type JumpTarget = { step: number; key: string | null } | "first-error";

/**
 * A long run at a glance: its steps in bins (model turns, compactions, errors, approvals per bin), one
 * tab stop whose arrow keys move between bins, Enter or a click jumps there; "First error" and "Go to
 * step" jump directly. What a step is is said in the legend. Memoized: the transcript draws again on every
 * scroll, and the bins change only when the run moves.
 */
export const RunNavigator = memo(function RunNavigator({
  bins,
  marks,
  unread,
  onJump,
}: {
  bins: readonly NavBin[];
  marks: readonly NavMark[];
  /** Older messages are not read yet: errors among them are not known until they are. */
  unread: boolean;
  onJump: (target: JumpTarget) => void;
}) {
  const [active, setActive] = useState(0);
  const [stepText, setStepText] = useState("");
  const errors = marks.filter((mark) => mark.kind === "error").length;
  const compactions = marks.filter((mark) => mark.kind === "compaction").length;
  const maxTurns = Math.max(1, ...bins.map((bin) => bin.turns));
  const maxCompactions = Math.max(1, ...bins.map((bin) => bin.compactions));
  if (bins.length === 0) return null;
  const current = Math.min(active, bins.length - 1);
  const jumpTo = (bin: NavBin) =>
    onJump(
      bin.target ? { step: bin.target.step, key: bin.target.entryKey } : { step: bin.fromStep, key: null },
    );
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    const next = Math.max(0, Math.min(bins.length - 1, current + move));
    setActive(next);
    event.currentTarget.querySelectorAll<HTMLElement>("button")[next]?.focus();
  };
  const first = bins[0];
  const last = bins[bins.length - 1];
  return (
    <section className="run-navigator" data-testid="run-navigator" aria-label="Run navigator">
      <div className="navigator-tools">
        <button
          type="button"
          className="small"
          data-testid="jump-first-error"
          disabled={errors === 0 && !unread}
          title={unread ? "Reads the older part of the log to find it" : undefined}
          onClick={() => onJump("first-error")}
        >
          First error{errors > 0 ? ` (${errors}${unread ? "+" : ""})` : unread ? " (read all)" : ": none"}
        </button>
        <form
          className="navigator-step"
          onSubmit={(event) => {
            event.preventDefault();
            const step = Number(stepText);
            if (stepText.trim() !== "" && Number.isInteger(step) && step >= 0) onJump({ step, key: null });
          }}
        >
          <label className="small">
            Go to step{" "}
            <input
              type="number"
              min={0}
              inputMode="numeric"
              data-testid="jump-step-input"
              value={stepText}
              onChange={(event) => setStepText(event.target.value)}
            />
          </label>
          <button type="submit" className="small" data-testid="jump-step">
            Go
          </button>
        </form>
        <span className="muted small" data-testid="navigator-counts">
          {compactions} compaction{compactions === 1 ? "" : "s"} · {errors} error{errors === 1 ? "" : "s"}
          {unread ? " in the part read" : ""}
        </span>
      </div>
      <div
        className="navigator-bins"
        role="toolbar"
        aria-label={`Timeline, steps ${first?.fromStep ?? 0} to ${last?.toStep ?? 0}: arrow keys move, Enter jumps`}
        data-testid="navigator-bins"
        data-bins={bins.length}
        onKeyDown={onKeyDown}
      >
        {bins.map((bin, index) => (
          <button
            key={bin.fromStep}
            type="button"
            className="navigator-bin"
            data-testid="navigator-bin"
            data-from-step={bin.fromStep}
            data-compactions={bin.compactions}
            data-errors={bin.errors}
            tabIndex={index === current ? 0 : -1}
            aria-label={binLabel(bin)}
            title={binLabel(bin)}
            // The turns bar and the compactions band are drawn by CSS from these (no element each: a
            // long run's timeline stays a few nodes per bin).
            style={
              {
                "--bin-turns": `${(100 * bin.turns) / maxTurns}%`,
                "--bin-compactions":
                  bin.compactions > 0 ? 0.35 + (0.65 * bin.compactions) / maxCompactions : 0,
              } as CSSProperties
            }
            onFocus={() => setActive(index)}
            onClick={() => {
              setActive(index);
              jumpTo(bin);
            }}
          >
            {bin.errors > 0 && <span className="bin-error" />}
            {bin.approvals > 0 && <span className="bin-approval" />}
          </button>
        ))}
      </div>
      <p className="navigator-legend muted small">
        <span className="legend-turns">model turns</span>{" "}
        <span className="legend-compaction">compactions</span> <span className="legend-error">error</span>{" "}
        <span className="legend-approval">approval</span> · steps {first?.fromStep}–{last?.toStep}
      </p>
      <details className="step-meaning small" data-testid="step-meaning">
        <summary>What is a step?</summary>
        <p>{STEP_MEANING}</p>
      </details>
    </section>
  );
});
