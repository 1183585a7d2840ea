import { LongrunError } from "@longrun/protocol";
import { runAgentStep } from "./agent-step.ts";
import { type CompactionOutcome, runCompaction } from "./compaction-runner.ts";
import type { Coordinator } from "./coordinator.ts";
import type { RunControl } from "./run-control.ts";
import type { CompactJob, RuntimeDeps, StepJob } from "./runtime-deps.ts";

export interface JobRunnerOptions {
  deps: RuntimeDeps;
  coordinator: Coordinator;
  runControl: RunControl;
  /** How long a lease lives without renewal; a crashed worker's lease expires after this. */
  leaseMs?: number;
  /** Attempts per job as configured on the queue (the last failure fails the run). */
  maxAttempts?: { step?: number; compact?: number };
}

/** What a queue hands a job besides its payload. */
export interface JobAttempt {
  attempt: number;
  /** An earlier run of this attempt died mid-way (crash, stall, shutdown): its facts may be in the log. */
  redelivered?: boolean;
  signal: AbortSignal;
}

export type StepPayload = StepJob & { expectSeq?: number };

const FINISHED = new Set(["completed", "failed", "cancelled"]);

/**
 * The work behind the `agent.step` and `agent.compact` jobs, independent of the queue: take the
 * agent's lease (fencing token for every append), run, release, then apply the outcome.
 */
export function createJobRunner(options: JobRunnerOptions) {
  const { deps, runControl, coordinator } = options;
  const leaseMs = options.leaseMs ?? 30_000;

  async function withAgentLease<T>(
    agentId: string,
    onBusy: () => Promise<void>,
    work: (fence: number) => Promise<T>,
  ) {
    const lease = await deps.lease.acquire(`agent:${agentId}`, leaseMs);
    if (!lease) {
      await onBusy();
      return "busy" as const;
    }
    const renewal = setInterval(() => {
      lease.renew().catch(() => undefined);
    }, leaseMs / 3);
    try {
      return await work(lease.token);
    } finally {
      clearInterval(renewal);
      await lease.release().catch(() => undefined);
    }
  }

  async function step(payload: StepPayload, attempt: JobAttempt): Promise<Record<string, unknown>> {
    const run = await deps.store.runs.get(payload.runId);
    if (!run || FINISHED.has(run.status)) return { skipped: "run finished" };
    if (payload.expectSeq !== undefined && attempt.attempt === 1 && !attempt.redelivered) {
      // A duplicate scheduled before the agent moved on: the log already went past it. (A redelivered
      // job moved the log itself before its worker died, so it must run: the step reads back from the log.)
      const last = await deps.store.messages.last(payload.agentId);
      if ((last?.seq ?? -1) !== payload.expectSeq) return { skipped: "stale step" };
    }
    const job: StepJob = {
      threadId: payload.threadId,
      agentId: payload.agentId,
      runId: payload.runId,
      ...(payload.afterOverflow ? { afterOverflow: true } : {}),
      ...(payload.compactionDeferred ? { compactionDeferred: true } : {}),
    };
    try {
      const outcome = await withAgentLease(
        job.agentId,
        () => deps.scheduler.step(job, { delayMs: 250 }),
        async (fence) => {
          await runControl.setAgentStatus(job.threadId, job.agentId, job.runId, "running");
          return runAgentStep(deps, coordinator, { ...job, fence, signal: attempt.signal });
        },
      );
      if (outcome === "busy") return { skipped: "agent busy" };
      await runControl.afterStep(job, outcome);
      return { outcome: outcome.kind };
    } catch (error) {
      return onJobError(error, job, attempt, options.maxAttempts?.step ?? 5, "step_failed");
    }
  }

  async function compact(payload: CompactJob, attempt: JobAttempt): Promise<Record<string, unknown>> {
    const job = { threadId: payload.threadId, agentId: payload.agentId, runId: payload.runId };
    const run = await deps.store.runs.get(payload.runId);
    if (!run || FINISHED.has(run.status)) return { skipped: "run finished" };
    try {
      const outcome = await withAgentLease(
        job.agentId,
        // Not scheduler.compact: the queue deduplicates compactions per agent while this job is still
        // active, so that re-enqueue would be dropped. A manual compaction is retried by the queue; an
        // automatic one by a step, which measures again and asks for the compaction if still needed.
        async () => {
          if (payload.trigger === "manual") throw new Error("agent busy: manual compaction retried later");
          await deps.scheduler.step(job, { delayMs: 250 });
        },
        (fence) => runCompaction(deps, { ...payload, fence, signal: attempt.signal }),
      );
      if (outcome === "busy") return { skipped: "agent busy" };
      await afterCompaction(job, payload.trigger, outcome);
      return { outcome: outcome.kind };
    } catch (error) {
      return onJobError(error, job, attempt, options.maxAttempts?.compact ?? 3, "compaction_failed");
    }
  }

  /**
   * A job's error: a lost lease means another worker owns the agent now; the last attempt fails the
   * run visibly; earlier ones are rethrown for the queue to retry.
   */
  async function onJobError(
    error: unknown,
    job: StepJob,
    attempt: JobAttempt,
    maxAttempts: number,
    code: string,
  ): Promise<Record<string, unknown>> {
    if (isLeaseLost(error)) return { skipped: "lease lost" };
    if (attempt.attempt < maxAttempts) throw error;
    await runControl.failRun(job, { code, message: errorMessage(error) });
    return { failed: errorMessage(error) };
  }

  async function afterCompaction(job: StepJob, trigger: CompactJob["trigger"], outcome: CompactionOutcome) {
    if (trigger === "manual") {
      // I7: a manual compaction is its own turn; nothing continues until the next user message.
      const ok = outcome.kind === "compacted" || outcome.kind === "nothing";
      await runControl.finishCompactionRun(job, ok, describe(outcome));
      return;
    }
    switch (outcome.kind) {
      case "compacted":
        await deps.scheduler.step({ ...job, ...(trigger === "overflow" ? { afterOverflow: true } : {}) });
        return;
      case "nothing":
        // Asking again would find nothing again: continue, and let the hard limit decide (I6).
        await deps.scheduler.step({ ...job, compactionDeferred: true });
        return;
      case "exhausted":
        await runControl.finishAgent(job, "context_exhausted", outcome.reason);
        return;
      case "failed":
      case "blocked":
        await deps.scheduler.step(job, {
          delayMs: Math.max(0, (outcome.retryAt ?? deps.now()) - deps.now()),
        });
        return;
      default: {
        const exhaustive: never = outcome;
        throw new Error(`unknown compaction outcome ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  return { step, compact };
}

export type JobRunner = ReturnType<typeof createJobRunner>;

function describe(outcome: CompactionOutcome): string {
  switch (outcome.kind) {
    case "compacted":
      return `compacted: ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens`;
    case "nothing":
      return outcome.reason;
    default:
      return outcome.reason;
  }
}

function isLeaseLost(error: unknown): boolean {
  return (
    LongrunError.isInstance(error) &&
    (error.details as { leaseLost?: boolean } | undefined)?.leaseLost === true
  );
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
