import type { RunView } from "../state/thread-state.ts";
import { outcome } from "./run-history.tsx";

/** Where a run ended in the transcript, with its outcome; a cancelled run is marked as such. */
export function RunMarker({ run }: { run: RunView }) {
  return (
    <div
      className={`run-marker run-${run.status}`}
      data-testid="run-marker"
      data-entry=""
      tabIndex={-1}
      data-run-id={run.id}
      data-status={run.status}
    >
      <span className={`badge status-${run.status}`}>
        {run.status === "cancelled" ? "cancelled" : `run ${run.status}`}
      </span>{" "}
      <span className="small">
        {run.kind ?? "run"} {outcome(run)}
      </span>
    </div>
  );
}
