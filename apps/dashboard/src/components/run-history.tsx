import { formatDuration, humanStatus } from "../lib/format.ts";
import type { RunView, ThreadState } from "../state/thread-state.ts";

const SHOWN = 30;

/** Every run of the thread, newest first, with its outcome: cancelled and failed runs leave a trace. */
export function RunHistory({ thread }: { thread: ThreadState }) {
  const runs = Object.values(thread.runs).sort(
    (left, right) => (right.createdAt ?? right.at) - (left.createdAt ?? left.at),
  );
  if (runs.length === 0) return null;
  return (
    <details className="panel run-history" data-testid="run-history">
      <summary>
        <h2>Runs ({runs.length})</h2>
      </summary>
      <ol>
        {runs.slice(0, SHOWN).map((run) => (
          <li key={run.id} data-testid="run-history-item" data-run-id={run.id} data-status={run.status}>
            <span className={`badge status-${run.status}`}>{humanStatus(run.status)}</span>{" "}
            <span>{run.kind ?? "run"}</span>
            {thread.agents[run.agentId ?? ""] && (
              <span className="muted small"> · {thread.agents[run.agentId ?? ""]?.name}</span>
            )}
            <span className="muted small"> · {outcome(run)}</span>
          </li>
        ))}
      </ol>
      {runs.length > SHOWN && <p className="muted small">{runs.length - SHOWN} older runs not shown.</p>}
    </details>
  );
}

/** One line on how a run ended (or how long it has been going). */
export function outcome(run: RunView, now: number = Date.now()): string {
  const started = run.startedAt ?? run.createdAt;
  const took = started && run.finishedAt ? ` after ${formatDuration(run.finishedAt - started)}` : "";
  switch (run.status) {
    case "completed":
      return `completed${took}`;
    case "failed":
      return `failed${took}: ${run.error?.message ?? "no reason given"}`;
    case "cancelled":
      return `cancelled${took}${run.reason ? `: ${run.reason}` : ""}`;
    case "stuck":
      return `stuck: ${run.error?.message ?? "nothing moves it"}`;
    case "queued":
      return "queued behind the active run";
    default:
      return started ? `for ${formatDuration(now - started)}` : humanStatus(run.status);
  }
}
