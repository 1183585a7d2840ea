import type { JobContext, JobHandlers, JobPayload } from "@longrun/queue";
import { createJobRunner, type JobRunnerOptions } from "@longrun/runtime";
import type { CancelRegistry } from "./cancel-registry.ts";

export interface WorkerEnv extends JobRunnerOptions {
  cancels: CancelRegistry;
}

/** Binds the job catalog to the runtime's job runner; cancels reach the running step by run id. */
export function createJobHandlers(env: WorkerEnv): JobHandlers {
  const runner = createJobRunner(env);
  return {
    "agent.step": async (payload: JobPayload<"agent.step">, context: JobContext) => {
      const tracked = env.cancels.track(payload.runId, context.signal);
      try {
        return await runner.step(payload, {
          attempt: context.attempt,
          redelivered: context.redelivered,
          signal: tracked.signal,
        });
      } finally {
        tracked.done();
      }
    },
    "agent.compact": async (payload: JobPayload<"agent.compact">, context: JobContext) => {
      const tracked = env.cancels.track(payload.runId, context.signal);
      try {
        return await runner.compact(payload, {
          attempt: context.attempt,
          redelivered: context.redelivered,
          signal: tracked.signal,
        });
      } finally {
        tracked.done();
      }
    },
  };
}
