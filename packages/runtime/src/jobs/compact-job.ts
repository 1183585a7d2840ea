import type { CompactJob, JobContext, StepJob } from "@longrun/queue";
import { type CompactionOutcome, runCompaction } from "../compaction/run-compaction.ts";
import { holdAgentLease } from "../runs/agent-lease.ts";
import type { RunControl } from "../runs/run-control.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { runFinished, settleJobError } from "./job-failure.ts";

/** What the compaction job needs besides the shared resources. */
export interface CompactJobEnv {
  deps: RuntimeDeps;
  runControl: RunControl;
  leaseMs: number;
}

/**
 * The `agent.compact` job: under the agent's lease, one compaction (runtime/compaction), then what
 * follows it — the next step of an automatic compaction, the end of a manual one's turn (I7), a wait
 * while the breaker is open, or the agent's end when the context cannot fit.
 */
export async function runCompactJob(
  env: CompactJobEnv,
  payload: CompactJob,
  context: JobContext,
): Promise<Record<string, unknown>> {
  const { deps, runControl } = env;
  const job = { threadId: payload.threadId, agentId: payload.agentId, runId: payload.runId };
  if (await runFinished(deps, payload.runId)) return { skipped: "run finished" };
  const run = await deps.store.runs.get(payload.runId);
  if (run?.status === "stuck") await runControl.markRunning(run.id);
  try {
    const lease = await holdAgentLease(deps, job.agentId, { ttlMs: env.leaseMs, runId: job.runId });
    if (!lease) {
      // Not scheduler.compact: the queue deduplicates compactions per agent while this job is still
      // active, so that re-enqueue would be dropped. A manual compaction is retried by the queue; an
      // automatic one by a step, which measures again and asks for the compaction if still needed.
      if (payload.trigger === "manual") throw new Error("agent busy: manual compaction retried later");
      await deps.scheduler.step(job, { delayMs: 250 });
      return { skipped: "agent busy" };
    }
    let outcome: CompactionOutcome;
    const startedAt = performance.now();
    try {
      outcome = await runCompaction(deps, {
        ...payload,
        fence: lease.fence,
        signal: AbortSignal.any([context.signal, lease.lost]),
        // One key per job, kept across redeliveries: a crashed attempt's `compaction.started` is
        // followed by the terminal event of the attempt that finishes it.
        compactionKey: `job:${context.jobId}`,
      });
      deps.metrics?.compaction((performance.now() - startedAt) / 1000, outcome.kind);
    } catch (error) {
      deps.metrics?.compaction((performance.now() - startedAt) / 1000, "error");
      throw error;
    } finally {
      await lease.release();
    }
    // Cancelled while it ran: nothing is scheduled for a finished run.
    if (await runFinished(deps, job.runId)) return { skipped: "run finished", outcome: outcome.kind };
    await afterCompaction(env, job, payload.trigger, outcome);
    return { outcome: outcome.kind };
  } catch (error) {
    return settleJobError(deps, runControl, error, job, context, "compaction_failed");
  }
}

async function afterCompaction(
  env: CompactJobEnv,
  job: StepJob,
  trigger: CompactJob["trigger"],
  outcome: CompactionOutcome,
) {
  const { deps, runControl } = env;
  if (trigger === "manual") {
    // I7: a manual compaction is its own turn; nothing continues until the next user message.
    const ok = outcome.kind === "compacted" || outcome.kind === "nothing";
    await runControl.finishCompactionRun(job, ok, describe(outcome));
    return;
  }
  switch (outcome.kind) {
    case "compacted":
      // Never two compactions in a row without a step between: the next step goes on with the compacted
      // context (the post-compaction check already refused one over the limit, I6).
      await deps.scheduler.step({
        ...job,
        compactionDeferred: true,
        ...(trigger === "overflow" ? { afterOverflow: true } : {}),
      });
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
      // The next step goes now, not after the breaker's cooldown (up to 30 minutes with no model call):
      // under the hard limit it calls the model with the deterministic projection; over it, it waits for
      // the breaker and says until when (agent-step.ts).
      await deps.scheduler.step(job);
      return;
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unknown compaction outcome ${JSON.stringify(exhaustive)}`);
    }
  }
}

function describe(outcome: CompactionOutcome): string {
  return outcome.kind === "compacted"
    ? `compacted: ${outcome.tokensBefore} → ${outcome.tokensAfter} tokens`
    : outcome.reason;
}
