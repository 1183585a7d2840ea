import { errorFields, isLeaseLost } from "@longrun/protocol";
import type { StepJob } from "@longrun/queue";
import { type JobContext, UnrecoverableJobError } from "@longrun/queue";
import { isForkAnchorMissing } from "../context/fork-prefix.ts";
import type { RunControl } from "../runs/run-control.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { ModelTimeoutError } from "../step/model-deadline.ts";
import { isPermanentProviderError } from "../step/provider-retry.ts";

const FINISHED = new Set(["completed", "failed", "cancelled"]);

/** True when the run is gone or ended: nothing more is done for it. */
export async function runFinished(deps: Pick<RuntimeDeps, "store">, runId: string): Promise<boolean> {
  const run = await deps.store.runs.get(runId);
  return !run || FINISHED.has(run.status);
}

/** True for a run status after which no job runs. */
export const isFinishedStatus = (status: string | null) => status === null || FINISHED.has(status);

/**
 * The retry verdict of a job that threw, in one place: a lost lease means another worker owns the agent
 * now (nothing to do); an error that retrying cannot fix (a model the provider does not know, a broken
 * fork anchor) fails the run at once and the job with an unrecoverable error; on the queue's final
 * attempt the run fails visibly before the job does; earlier attempts are left to the queue's retry.
 */
export async function settleJobError(
  deps: Pick<RuntimeDeps, "store" | "log">,
  runControl: RunControl,
  error: unknown,
  job: StepJob,
  context: Pick<JobContext, "finalAttempt" | "attempt" | "maxAttempts">,
  code: "step_failed" | "compaction_failed",
): Promise<Record<string, unknown>> {
  // The lease's loss was logged when it happened (agent-lease.ts).
  if (isLeaseLost(error)) return { skipped: "lease lost" };
  if (await runFinished(deps, job.runId)) {
    deps.log.debug(errorFields(error), "job failed after its run ended: nothing to do");
    return { skipped: "run finished" };
  }
  const permanent = permanentReason(error);
  if (permanent === null && !context.finalAttempt) {
    // A model that did not answer: the run cannot move until the retry, so it says so and why
    // (the next attempt that moves it marks it running again).
    if (ModelTimeoutError.isInstance(error)) {
      const run = await deps.store.runs.get(job.runId);
      const retry = `the step is retried (attempt ${context.attempt + 1} of ${context.maxAttempts})`;
      if (run) await runControl.markStuck(run, `${error.message}; ${retry}`);
    }
    deps.log.warn(
      { ...errorFields(error), maxAttempts: context.maxAttempts },
      "job failed; the queue retries it",
    );
    throw error;
  }
  const message = permanent ?? errorMessage(error);
  deps.log.error({ ...errorFields(error), code, permanent: permanent !== null }, "job failed: the run fails");
  await runControl.failRun(job, { code, message });
  // The run has failed where users see it; the job fails too, for the queue's own accounting.
  throw new UnrecoverableJobError(message, { cause: error });
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why retrying this error cannot help, or null when it might. */
function permanentReason(error: unknown): string | null {
  if (isForkAnchorMissing(error)) return errorMessage(error);
  if (isPermanentProviderError(error))
    return `the model provider refused the request: ${errorMessage(error)}`;
  return null;
}
