import { preparedOnBase, shouldPrepareSummary } from "@longrun/compaction";
import type { CallCost } from "@longrun/protocol";
import type { PrepareJob } from "@longrun/queue";
import { newId } from "@longrun/store";
import { loadAgentContext } from "../context/agent-context.ts";
import { projectContext } from "../context/projection.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { beginAttempt } from "./compaction-attempt.ts";
import { planFor } from "./run-compaction.ts";
import { summarize } from "./summarize.ts";

/** How one background summary ended. */
export type PrepareOutcome = { kind: "ready" } | { kind: "skipped"; reason: string } | { kind: "failed" };

/**
 * A background prefix compaction's first half, off the agent's steps and without its lease: once the
 * request passed its early line, summarize the older prefix as a compaction would cut it now, and keep
 * the summary (prepared_summaries) for the compaction at the trigger, which applies it with no summary
 * call of its own if the history still begins with what it covers — else it is discarded. The summary
 * call is the one a compaction makes (a continuation of the agent's request, provider state stripped),
 * counted by the breaker; its end is a `compaction.prepared` event.
 */
export async function prepareSummary(
  deps: RuntimeDeps,
  job: PrepareJob & { signal: AbortSignal },
): Promise<PrepareOutcome> {
  const context = await loadAgentContext(deps, job.agentId);
  // A row still without its text was left by a job that died with its worker: the queue runs one of
  // these jobs per agent at a time (its dedupe key), so no other is making it now. It is made again.
  const found = await deps.store.preparedSummaries.get(job.agentId);
  if (found?.summaryText != null && preparedOnBase(found, context.compaction)) {
    return { kind: "skipped", reason: "prepared already" };
  }
  // peek: a half-open breaker's trial belongs to the foreground compaction.
  const gate = await deps.breaker.peek(job.agentId);
  if (!gate.allowed) return { kind: "skipped", reason: `breaker ${gate.state}` };
  // Projected only once the cheaper checks pass.
  const before = projectContext(deps, context);
  if (!shouldPrepareSummary(before, context.profile, context.compaction)) {
    return { kind: "skipped", reason: "not needed: under the early line, or due now" };
  }
  const plan = planFor(deps, { strategy: "partial" }, context, before);
  if (!plan || plan.progress.noProgress || plan.cutoffMessageId === null) {
    return { kind: "skipped", reason: "a compaction now would make no progress" };
  }
  const compactionKey = `prepare:${newId()}`;
  const attempt = beginAttempt(
    deps,
    { ...job, trigger: "auto", fence: 0, signal: job.signal },
    compactionKey,
  );
  const prepared = (outcome: "ready" | "failed", extra: { reason?: string; summaryCost?: CallCost } = {}) =>
    deps.events.emit({
      ...attempt.where,
      type: "compaction.prepared",
      data: {
        compactionKey,
        outcome,
        cutoffMessageId: plan.cutoffMessageId,
        tokensAt: before.tokens,
        ...(extra.reason === undefined ? {} : { reason: extra.reason }),
        ...(extra.summaryCost === undefined ? {} : { summaryCost: extra.summaryCost }),
      },
    });
  // A failed background summary is said as such, not as a failed compaction (none was started).
  attempt.reportFailure = (reason) => {
    attempt.ended = true;
    return prepared("failed", { reason: `background ${reason}` });
  };
  // A compaction that ran since the context was read made this plan stale.
  const inForce = await deps.store.compactions.latest(job.agentId);
  if ((inForce?.id ?? null) !== (context.compaction?.id ?? null)) {
    return { kind: "skipped", reason: "a compaction ran meanwhile" };
  }
  // Recorded before the call, so a compaction that comes due meanwhile waits for it instead of making
  // a second summary (see takePreparedSummary).
  await deps.store.preparedSummaries.start({
    agentId: job.agentId,
    baseCompactionId: context.compaction?.id ?? null,
    compactionKey,
    cutoffMessageId: plan.cutoffMessageId,
    form: plan.request.form,
    tokensAt: before.tokens,
    preparedAt: deps.now(),
  });
  let summary: Awaited<ReturnType<typeof summarize>>;
  try {
    summary = await summarize(attempt, plan, context);
  } catch (error) {
    await deps.store.preparedSummaries.remove(job.agentId, compactionKey);
    throw error;
  }
  if ("outcome" in summary) {
    await deps.store.preparedSummaries.remove(job.agentId, compactionKey);
    return { kind: "failed" };
  }
  const kept = await deps.store.preparedSummaries.ready(job.agentId, compactionKey, summary.text);
  await prepared("ready", {
    summaryCost: summary.cost,
    ...(kept ? {} : { reason: "a compaction ran meanwhile: not kept" }),
  });
  return { kind: "ready" };
}
