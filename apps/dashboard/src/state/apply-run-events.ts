import type { LongrunEvent } from "@longrun/protocol";
import type { Draft } from "./draft.ts";
import type { RunView } from "./thread-state.ts";

export type RunEvent = Extract<
  LongrunEvent,
  {
    type:
      | "run.queued"
      | "run.started"
      | "run.completed"
      | "run.failed"
      | "run.cancelled"
      | "run.interrupt_requested"
      | "run.stuck"
      | "run.resumed";
  }
>;

/** Applies a run.* event to the run it names (times, status, report, error). */
export function applyRun(draft: Draft, event: RunEvent, history: boolean): void {
  const runId = event.runId;
  if (!runId) return;
  const runs = draft.record("runs");
  const known = runs[runId];
  const times = runTimes(known, event);
  if (history && known) {
    // The snapshot has the run's status; history only adds when it started and ended, and why.
    runs[runId] = {
      ...known,
      ...times,
      ...(event.type === "run.cancelled" && event.data.reason ? { reason: event.data.reason } : {}),
      ...(event.type === "run.completed" ? optionalReport(event.data.report) : {}),
    };
    return;
  }
  const base = {
    id: runId,
    agentId: event.agentId ?? known?.agentId ?? null,
    kind: known?.kind ?? null,
    at: event.at,
    ...times,
  };
  switch (event.type) {
    case "run.queued":
      runs[runId] = { ...known, ...base, kind: event.data.kind, status: known?.status ?? "queued" };
      return;
    case "run.started":
      runs[runId] = { ...known, ...base, kind: event.data.kind, status: "running" };
      return;
    case "run.completed":
      runs[runId] = { ...known, ...base, status: "completed", ...optionalReport(event.data.report) };
      break;
    case "run.failed":
      runs[runId] = { ...known, ...base, status: "failed", error: event.data.error };
      break;
    case "run.cancelled":
      runs[runId] = {
        ...known,
        ...base,
        status: "cancelled",
        ...(event.data.reason ? { reason: event.data.reason } : {}),
      };
      break;
    case "run.interrupt_requested":
      // A new message asked it to stop at its next step boundary: still running until then.
      runs[runId] = { ...known, ...base, status: known?.status ?? "running", interruptRequestedAt: event.at };
      return;
    case "run.stuck":
      // Nothing moves it: the reconciler says why. It stays active (cancel works, it may recover).
      runs[runId] = {
        ...known,
        ...base,
        status: "stuck",
        error: { code: "stuck", message: event.data.reason },
      };
      return;
    case "run.resumed":
      runs[runId] = { ...known, ...base, status: "running" };
      return;
  }
  // A finished run leaves no half-written text behind.
  if (event.agentId) delete draft.record("streaming")[event.agentId];
}

function runTimes(known: RunView | undefined, event: RunEvent): Partial<RunView> {
  switch (event.type) {
    case "run.queued":
      return { createdAt: known?.createdAt ?? event.at };
    case "run.started":
      return { createdAt: known?.createdAt ?? event.at, startedAt: known?.startedAt ?? event.at };
    case "run.completed":
    case "run.failed":
    case "run.cancelled":
      return { finishedAt: known?.finishedAt ?? event.at };
    default:
      return {};
  }
}

function optionalReport(report: string | undefined): { report?: string } {
  return report === undefined ? {} : { report };
}
