import type { JobContext, PrepareJob } from "@longrun/queue";
import { prepareSummary } from "../compaction/prepare-summary.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { runFinished } from "./job-failure.ts";

/**
 * The `agent.prepare-summary` job: a background summary of the agent's older prefix. It holds no lease
 * (the agent keeps stepping) and fails nothing: a summary that is not ready in time, or fails, leaves
 * the compaction at the trigger to make its own.
 */
export async function runPrepareJob(
  deps: RuntimeDeps,
  payload: PrepareJob,
  context: JobContext,
): Promise<Record<string, unknown>> {
  if (await runFinished(deps, payload.runId)) return { skipped: "run finished" };
  const outcome = await prepareSummary(deps, { ...payload, signal: context.signal });
  return outcome.kind === "skipped" ? { skipped: outcome.reason } : { outcome: outcome.kind };
}
