import type { AgentStepPayload, JobContext, StepJob } from "@longrun/queue";
import { SpanStatusCode } from "@opentelemetry/api";
import { openSession, type SessionCache, sessionIsCurrent } from "../context/agent-session.ts";
import { holdAgentLease } from "../runs/agent-lease.ts";
import type { Coordinator } from "../runs/coordinator.ts";
import { INTERRUPTED_AT_BOUNDARY, type RunControl } from "../runs/run-control.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { runAgentStep, type StepOutcome } from "../step/agent-step.ts";
import { idAttributes, inSpan } from "../tracing/spans.ts";
import { isFinishedStatus, settleJobError } from "./job-failure.ts";

/** What the step job needs besides the shared resources. */
export interface StepJobEnv {
  deps: RuntimeDeps;
  coordinator: Coordinator;
  runControl: RunControl;
  /** Agents' contexts as this process last left them (trusted only after a probe under the lease). */
  sessions: SessionCache;
  leaseMs: number;
}

/**
 * The `agent.step` job: under the agent's lease, run one step (a model call and its tool calls) and
 * apply its outcome to the run. A step that finds the agent busy, its run ended, or the log already
 * past the position it was scheduled at stands down without side effects.
 */
export async function runStepJob(
  env: StepJobEnv,
  payload: AgentStepPayload,
  context: JobContext,
): Promise<Record<string, unknown>> {
  const { deps, sessions, runControl } = env;
  const job: StepJob = {
    threadId: payload.threadId,
    agentId: payload.agentId,
    runId: payload.runId,
    ...(payload.afterOverflow ? { afterOverflow: true } : {}),
    ...(payload.compactionDeferred ? { compactionDeferred: true } : {}),
  };
  try {
    const lease = await holdAgentLease(deps, job.agentId, {
      ttlMs: env.leaseMs,
      runId: job.runId,
      floor: sessions.get(job.agentId)?.fence,
    });
    if (!lease) {
      await deps.scheduler.step(job, { delayMs: 250 });
      return { skipped: "agent busy" };
    }
    const { probe } = lease;
    let lastSeq: number;
    let outcome: Awaited<ReturnType<typeof runAgentStep>>;
    try {
      if (isFinishedStatus(probe.runStatus)) return { skipped: "run finished" };
      // A new message asked the run to stop (multitask: interrupt): this is its next step boundary.
      if (probe.runInterruptRequestedAt !== null) {
        await runControl.cancel(job.runId, INTERRUPTED_AT_BOUNDARY);
        return { skipped: "interrupted at the step boundary" };
      }
      // A compaction run never continues with a model call (I7; a client conversation is driven by its
      // client, not by steps).
      if (probe.runKind === "compact") return { skipped: "compaction runs take no steps" };
      // A duplicate scheduled before the agent moved on: the log already went past it. (A redelivered job
      // moved the log itself before its worker died, so it must run: the step reads back from it.) An
      // agent still `queued` has taken no step since the job was scheduled (its first step sets
      // `running`): the log moved under another run's step — one cancelled mid-step that recorded its
      // tool results after this run started — and skipping would leave this run with no job.
      const duplicate = context.attempt === 1 && !context.redelivered && probe.agentStatus !== "queued";
      if (payload.expectSeq !== undefined && duplicate && probe.lastSeq !== payload.expectSeq) {
        return { skipped: "stale step" };
      }
      const cached = sessions.get(job.agentId);
      const session =
        cached && sessionIsCurrent(cached, probe) ? cached : await openSession(deps, job.agentId, probe);
      session.fence = lease.fence;
      sessions.set(job.agentId, session);
      if (probe.runStatus === "stuck") await runControl.markRunning(job.runId);
      if (probe.agentStatus !== "running") {
        await runControl.setAgentStatus(job.threadId, job.agentId, job.runId, "running");
      }
      const signal = AbortSignal.any([context.signal, lease.lost]);
      const startedAt = performance.now();
      try {
        outcome = await stepSpan(job, lease.fence, () =>
          runAgentStep(deps, env.coordinator, { ...job, fence: lease.fence, signal, session }),
        );
        deps.metrics?.step((performance.now() - startedAt) / 1000, outcome.kind);
      } catch (error) {
        deps.metrics?.step((performance.now() - startedAt) / 1000, "error");
        sessions.drop(job.agentId);
        throw error;
      }
      lastSeq = session.lastSeq;
      if (session.stale) sessions.drop(job.agentId);
    } finally {
      await lease.release();
    }
    // A run cancelled while this step ran: the next job's claim sees it and stops there, and a run that
    // ends checks its own status in its transaction. No read needed here.
    await runControl.afterStep(job, outcome, { expectSeq: lastSeq });
    return { outcome: outcome.kind };
  } catch (error) {
    sessions.drop(job.agentId);
    return settleJobError(deps, runControl, error, job, context, "step_failed");
  }
}

/** One agent step as a span (its model call and tool calls are its children), with how it ended. */
function stepSpan(job: StepJob, fence: number, step: () => Promise<StepOutcome>): Promise<StepOutcome> {
  return inSpan(
    "longrun.step",
    { attributes: { ...idAttributes(job), "longrun.lease.fence": fence } },
    async (span) => {
      const outcome = await step();
      span.setAttribute("longrun.step.outcome", outcome.kind);
      if (outcome.kind === "compact") span.setAttribute("longrun.compaction.trigger", outcome.trigger);
      if (outcome.kind === "failed") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason });
      return outcome;
    },
  );
}
