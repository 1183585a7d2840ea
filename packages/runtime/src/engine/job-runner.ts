import { type AgentProbe, isLeaseLost } from "@longrun/store";
import { isPermanentProviderError } from "../retry.ts";
import { agentLeaseKey } from "./agent-lease.ts";
import { openSession, SessionCache, sessionIsCurrent } from "./agent-session.ts";
import { runAgentStep } from "./agent-step.ts";
import { type CompactionOutcome, runCompaction } from "./compaction-runner.ts";
import type { Coordinator } from "./coordinator.ts";
import { isForkAnchorMissing } from "./fork-prefix.ts";
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
  /** The queue's job id (stable across redeliveries of the same job). */
  jobId?: string;
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

  /** Agents' contexts as this process last left them (trusted only after a probe under the lease). */
  const sessions = new SessionCache();

  /**
   * Runs `work` under the agent's lease. The holder first claims the agent's fencing token in the
   * database (one write that also returns the probe), so an earlier holder still running can append
   * nothing after that point. The lease is renewed in the background; a renewal that finds it taken
   * over aborts the work (its appends would be refused by the fence anyway).
   */
  async function withAgentLease<T>(
    agentId: string,
    runId: string,
    signal: AbortSignal,
    onBusy: () => Promise<void>,
    work: (fence: number, signal: AbortSignal, probe: AgentProbe) => Promise<T>,
  ) {
    let floor = sessions.get(agentId)?.fence ?? (await deps.store.agents.get(agentId))?.fence ?? 0;
    let lease = await deps.lease.acquire(agentLeaseKey(agentId), leaseMs, { floor });
    if (!lease) {
      await onBusy();
      return "busy" as const;
    }
    let probe: AgentProbe;
    try {
      probe = await deps.store.agents.claim(agentId, lease.token, runId);
    } catch (error) {
      await lease.release().catch(() => undefined);
      if (!isLeaseLost(error)) throw error;
      // The lease store handed out a token below the log's (it lost its counter and the floor this
      // process knew was old): take the lease again above what the log recorded.
      floor = (error as { details?: { currentFence?: number } }).details?.currentFence ?? floor;
      lease = await deps.lease.acquire(agentLeaseKey(agentId), leaseMs, { floor });
      if (!lease) {
        await onBusy();
        return "busy" as const;
      }
      probe = await deps.store.agents.claim(agentId, lease.token, runId);
    }
    const held = lease;
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    if (signal.aborted) controller.abort(signal.reason);
    else signal.addEventListener("abort", onAbort, { once: true });
    const renewal = setInterval(() => {
      held.renew().then(
        (kept) => {
          if (!kept) controller.abort(new Error(`lease lost: agent ${agentId}`));
        },
        () => undefined,
      );
    }, leaseMs / 3);
    try {
      return await work(held.token, controller.signal, probe);
    } finally {
      clearInterval(renewal);
      signal.removeEventListener("abort", onAbort);
      await held.release().catch(() => undefined);
    }
  }

  async function step(payload: StepPayload, attempt: JobAttempt): Promise<Record<string, unknown>> {
    const job: StepJob = {
      threadId: payload.threadId,
      agentId: payload.agentId,
      runId: payload.runId,
      ...(payload.afterOverflow ? { afterOverflow: true } : {}),
      ...(payload.compactionDeferred ? { compactionDeferred: true } : {}),
    };
    let lastSeq: number | null = null;
    try {
      const outcome = await withAgentLease(
        job.agentId,
        job.runId,
        attempt.signal,
        () => deps.scheduler.step(job, { delayMs: 250 }),
        async (fence, signal, probe) => {
          if (probe.runStatus === null || FINISHED.has(probe.runStatus)) return "finished" as const;
          // A compaction run never continues with a model call (I7; a gateway conversation is driven by
          // its client, not by steps).
          if (probe.runKind === "compact") return "compaction run" as const;
          // A duplicate scheduled before the agent moved on: the log already went past it. (A redelivered
          // job moved the log itself before its worker died, so it must run: the step reads back from it.)
          const duplicate = attempt.attempt === 1 && !attempt.redelivered;
          if (payload.expectSeq !== undefined && duplicate && probe.lastSeq !== payload.expectSeq) {
            return "stale" as const;
          }
          const cached = sessions.get(job.agentId);
          const session =
            cached && sessionIsCurrent(cached, probe) ? cached : await openSession(deps, job.agentId, probe);
          session.fence = fence;
          sessions.set(job.agentId, session);
          if (probe.runStatus === "stuck") await runControl.markRunning(job.runId);
          if (probe.agentStatus !== "running") {
            await runControl.setAgentStatus(job.threadId, job.agentId, job.runId, "running");
          }
          try {
            const result = await runAgentStep(deps, coordinator, { ...job, fence, signal, session });
            lastSeq = session.lastSeq;
            if ((session as { stale?: boolean }).stale) sessions.drop(job.agentId);
            return result;
          } catch (error) {
            sessions.drop(job.agentId);
            throw error;
          }
        },
      );
      if (outcome === "busy") return { skipped: "agent busy" };
      if (outcome === "finished") return { skipped: "run finished" };
      if (outcome === "stale") return { skipped: "stale step" };
      if (outcome === "compaction run") return { skipped: "compaction runs take no steps" };
      // A run cancelled while this step ran: the next job's claim sees it and stops there, and a run
      // that ends checks its own status in its transaction. No read needed here.
      await runControl.afterStep(job, outcome, lastSeq === null ? {} : { expectSeq: lastSeq });
      return { outcome: outcome.kind };
    } catch (error) {
      sessions.drop(job.agentId);
      return onJobError(error, job, attempt, options.maxAttempts?.step ?? 5, "step_failed");
    }
  }

  async function compact(payload: CompactJob, attempt: JobAttempt): Promise<Record<string, unknown>> {
    const job = { threadId: payload.threadId, agentId: payload.agentId, runId: payload.runId };
    const run = await deps.store.runs.get(payload.runId);
    if (!run || FINISHED.has(run.status)) return { skipped: "run finished" };
    if (run.status === "stuck") await runControl.markRunning(run.id);
    try {
      const outcome = await withAgentLease(
        job.agentId,
        job.runId,
        attempt.signal,
        // Not scheduler.compact: the queue deduplicates compactions per agent while this job is still
        // active, so that re-enqueue would be dropped. A manual compaction is retried by the queue; an
        // automatic one by a step, which measures again and asks for the compaction if still needed.
        async () => {
          if (payload.trigger === "manual") throw new Error("agent busy: manual compaction retried later");
          await deps.scheduler.step(job, { delayMs: 250 });
        },
        (fence, signal) =>
          runCompaction(deps, {
            ...payload,
            fence,
            signal,
            // One key per job, kept across redeliveries: a crashed attempt's `compaction.started` is
            // followed by the terminal event of the attempt that finishes it.
            ...(attempt.jobId ? { compactionKey: `job:${attempt.jobId}` } : {}),
          }),
      );
      if (outcome === "busy") return { skipped: "agent busy" };
      // Cancelled while it ran: nothing is scheduled for a finished run.
      if (await runFinished(job.runId)) return { skipped: "run finished", outcome: outcome.kind };
      await afterCompaction(job, payload.trigger, outcome);
      return { outcome: outcome.kind };
    } catch (error) {
      return onJobError(error, job, attempt, options.maxAttempts?.compact ?? 3, "compaction_failed");
    }
  }

  async function runFinished(runId: string): Promise<boolean> {
    const run = await deps.store.runs.get(runId);
    return !run || FINISHED.has(run.status);
  }

  /**
   * A job's error: a lost lease means another worker owns the agent now; an error that retrying
   * cannot fix (a model the provider does not know, a broken fork anchor) fails the agent at once;
   * the last attempt fails it visibly; earlier ones are rethrown for the queue to retry.
   */
  async function onJobError(
    error: unknown,
    job: StepJob,
    attempt: JobAttempt,
    maxAttempts: number,
    code: string,
  ): Promise<Record<string, unknown>> {
    if (isLeaseLost(error)) return { skipped: "lease lost" };
    if (await runFinished(job.runId)) return { skipped: "run finished" };
    const permanent = permanentReason(error);
    if (permanent === null && attempt.attempt < maxAttempts) throw error;
    const message = permanent ?? errorMessage(error);
    await runControl.failRun(job, { code, message });
    return { failed: message };
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
      case "blocked": {
        const until = outcome.retryAt ?? deps.now();
        if (until > deps.now()) {
          // The breaker is open: say so and until when, instead of showing "compacting" all along.
          await runControl.setAgentStatus(
            job.threadId,
            job.agentId,
            job.runId,
            "waiting",
            `compaction breaker open: waiting until ${new Date(until).toISOString()}`,
          );
        }
        await deps.scheduler.step(job, { delayMs: Math.max(0, until - deps.now()) });
        return;
      }
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
