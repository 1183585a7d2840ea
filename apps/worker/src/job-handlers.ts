import type { JobContext, JobHandlers } from "@longrun/queue";
import { createJobRunner, type JobAttempt, type JobRunnerOptions } from "@longrun/runtime";
import type { CancelRegistry } from "./cancel-registry.ts";

export interface WorkerEnv extends JobRunnerOptions {
  cancels: CancelRegistry;
}

/** Binds the job catalog to the runtime's job runner; cancels reach the running step by run id. */
export function createJobHandlers(env: WorkerEnv): JobHandlers {
  const runner = createJobRunner(env);
  /** Runs one job with a signal that a cancel of its run (from any server instance) also aborts. */
  const tracked =
    <Payload extends { runId: string }>(work: (payload: Payload, attempt: JobAttempt) => Promise<unknown>) =>
    async (payload: Payload, context: JobContext) => {
      const cancel = env.cancels.track(payload.runId, context.signal);
      try {
        return await work(payload, {
          attempt: context.attempt,
          jobId: context.jobId,
          signal: cancel.signal,
          redelivered: context.redelivered,
        });
      } finally {
        cancel.done();
      }
    };
  return { "agent.step": tracked(runner.step), "agent.compact": tracked(runner.compact) };
}
