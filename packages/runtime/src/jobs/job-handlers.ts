import { DEFAULT_LEASE_MS, type JobContext, type JobHandlers } from "@longrun/queue";
import { trace } from "@opentelemetry/api";
import { SessionCache } from "../context/agent-session.ts";
import type { Coordinator } from "../runs/coordinator.ts";
import type { RunControl } from "../runs/run-control.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { runCompactJob } from "./compact-job.ts";
import { type JobTarget, jobSpan } from "./job-span.ts";
import { runPrepareJob } from "./prepare-job.ts";
import { runStepJob } from "./step-job.ts";

/** What the runtime's job handlers are built from. */
export interface JobHandlersOptions {
  deps: RuntimeDeps;
  coordinator: Coordinator;
  runControl: RunControl;
  /** How long an agent's lease lives without renewal (default DEFAULT_LEASE_MS). */
  leaseMs?: number;
  /**
   * A signal per job that a cancel of its run (from any server instance) also aborts: the worker's
   * CancelRegistry. Without it, only the job's own signal (timeout, shutdown) aborts it.
   */
  track?: (runId: string, signal: AbortSignal) => { signal: AbortSignal; done(): void };
}

/**
 * The handlers of the job catalog (`agent.step`, `agent.compact`, `agent.prepare-summary`), ready for `queue.process`. Retries,
 * timeouts and dedupe are the queue's; what a job does, and when its run fails, is the runtime's.
 */
export function createJobHandlers(options: JobHandlersOptions): JobHandlers {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const sessions = new SessionCache();
  const stepEnv = { ...options, sessions, leaseMs };
  const compactEnv = { ...options, leaseMs };
  /** Runs one job with a signal that a cancel of its run also aborts. */
  const tracked =
    <Payload extends JobTarget, Context extends { signal: AbortSignal }>(
      work: (payload: Payload, context: Context) => Promise<unknown>,
    ) =>
    async (
      payload: Payload,
      context: Context & Pick<JobContext, "jobId" | "name" | "attempt" | "readyAt" | "redelivered">,
    ) => {
      // A first attempt's wait: a retry's would include its earlier attempts and its backoff.
      if (context.readyAt !== undefined && context.attempt === 1 && !context.redelivered) {
        options.deps.metrics?.queueWait(Math.max(0, Date.now() - context.readyAt) / 1000, context.name);
      }
      const cancel = options.track?.(payload.runId, context.signal);
      try {
        return await jobSpan(payload, context, () =>
          work(payload, cancel ? { ...context, signal: cancel.signal } : context),
        );
      } finally {
        cancel?.done();
      }
    };
  return {
    "agent.step": tracked((payload, context) =>
      runStepJob(withJobLog(stepEnv, payload, context), payload, context),
    ),
    "agent.compact": tracked((payload, context) =>
      runCompactJob(withJobLog(compactEnv, payload, context), payload, context),
    ),
    "agent.prepare-summary": tracked((payload, context) =>
      runPrepareJob(withJobLog({ deps: options.deps }, payload, context).deps, payload, context),
    ),
  };
}

/** The job's environment with a logger bound to its ids: every line the job writes names them. */
function withJobLog<Env extends { deps: RuntimeDeps }>(
  env: Env,
  payload: { threadId: string; agentId: string; runId: string; tenantId?: string | undefined },
  context: JobContext,
): Env {
  // The job's trace, when traced: its log lines and its spans can be looked up from each other.
  const traceId = trace.getActiveSpan()?.spanContext().traceId;
  const log = env.deps.log.child({
    ...(traceId ? { traceId } : {}),
    jobId: context.jobId,
    job: context.name,
    attempt: context.attempt,
    ...(payload.tenantId ? { tenantId: payload.tenantId } : {}),
    threadId: payload.threadId,
    agentId: payload.agentId,
    runId: payload.runId,
  });
  return { ...env, deps: { ...env.deps, log } };
}
