import { useActionError } from "../hooks/use-action-error.ts";
import { errorText } from "../lib/format.ts";
import { asOfConnectionLoss, type Blocker } from "../state/blockers.ts";
import { useStore } from "../state/store-context.tsx";
import type { ThreadState } from "../state/thread-state.ts";

const ACTIVE = new Set(["queued", "running", "waiting", "stuck"]);

/** The thread's active runs, each with a cancel button, and the last failure if any. */
export function RunBar({
  thread,
  waits,
  offline = false,
}: {
  thread: ThreadState;
  waits: readonly Blocker[];
  /** The live connection is down: a run's status is the last one known. */
  offline?: boolean;
}) {
  const { api } = useStore();
  const [error, setError] = useActionError();
  const runs = Object.values(thread.runs).sort((left, right) => left.at - right.at);
  const active = runs.filter((run) => ACTIVE.has(run.status));
  const lastFailed = [...runs].reverse().find((run) => run.status === "failed");
  const label = (run: (typeof runs)[number]) =>
    run.interruptRequestedAt !== undefined && run.status === "running"
      ? "stopping at its next step"
      : runLabel(
          run.status,
          waits.filter((blocker) => blocker.agentId === run.agentId),
        );
  return (
    <div className="run-bar" data-testid="run-bar">
      {active.map((run) => (
        <span
          key={run.id}
          className="run-chip"
          data-testid="run-chip"
          data-run-id={run.id}
          data-status={run.status}
        >
          {run.kind ?? "run"} · {offline ? asOfConnectionLoss(label(run)) : label(run)}
          <button
            type="button"
            className="small danger"
            data-testid="cancel-run-button"
            data-run-id={run.id}
            onClick={() => {
              setError(null);
              api.runs.cancel(run.id).catch((caught: unknown) => setError(errorText(caught)));
            }}
          >
            Cancel
          </button>
        </span>
      ))}
      {active.length === 0 && lastFailed?.error && (
        <span className="error small" data-testid="run-error">
          Last run failed: {lastFailed.error.message}
        </span>
      )}
      {error && <span className="error small">{error}</span>}
    </div>
  );
}

/** A run's word, saying what it waits for rather than "running" while its agent waits. */
function runLabel(status: string, waits: readonly Blocker[]): string {
  if (status === "queued") return "queued behind the active run";
  if (waits.some((blocker) => blocker.kind === "approval")) return "waiting for your decision";
  if (waits.some((blocker) => blocker.kind === "breaker")) return "waiting: breaker open";
  if (waits.some((blocker) => blocker.kind === "retry")) return "waiting: retrying";
  if (waits.some((blocker) => blocker.kind === "children")) return "waiting for sub-agents";
  return status;
}
