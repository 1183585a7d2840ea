import {
  type CompactionPlan,
  compactionFields,
  fitCompaction,
  MIN_COMPACTION_PROGRESS,
  type Projection,
  planCompaction,
  preparedOnBase,
  refitCompaction,
  sanitizeMessages,
  toChatMessages,
  updateLedger,
  verifyProjection,
} from "@longrun/compaction";
import { isLeaseLost } from "@longrun/protocol";
import { newId, type PreparedSummaryRow } from "@longrun/store";
import { type AgentContext, loadAgentContext } from "../context/agent-context.ts";
import { projectContext } from "../context/projection.ts";
import { waitForEvent } from "../events/event-waiter.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { toolsFor } from "../step/agent-tools.ts";
import { compactionSpan, noteProjection } from "../tracing/compaction-span.ts";
import {
  beginAttempt,
  type CompactionAttempt,
  type CompactionOutcome,
  type LeasedCompactJob,
} from "./compaction-attempt.ts";
import { historyFilePath, offloadHistory } from "./history-file.ts";
import { economyFields, fitDraft, recordFit, recordManualCompaction } from "./record-compaction.ts";
import { summarize } from "./summarize.ts";

export type { CompactionOutcome } from "./compaction-attempt.ts";

/**
 * One LLM compaction of one agent, in four parts: the breaker's gate, the plan (packages/compaction:
 * the cut, the sanitized summary request), the summary call (summarize.ts), and the record — offload of
 * the compacted source to the history file, restoration of recent files and the plan, the persisted
 * compaction event and the post-compaction check, I6 (record-compaction.ts). A manual compaction also
 * appends the visible `/compact` record and nothing else (I7).
 */
export function runCompaction(deps: RuntimeDeps, job: LeasedCompactJob): Promise<CompactionOutcome> {
  return compactionSpan(job, () => compactAttempt(deps, job));
}

async function compactAttempt(deps: RuntimeDeps, job: LeasedCompactJob): Promise<CompactionOutcome> {
  const attempt = beginAttempt(deps, job, job.compactionKey ?? newId());
  try {
    return await compactOnce(attempt);
  } catch (error) {
    // Every `compaction.started` gets its terminal event, whatever ended the attempt (a cancel, a lost
    // lease, a failed write).
    if (attempt.started && !attempt.ended) {
      const reason = job.signal.aborted
        ? "cancelled: the run was cancelled while the compaction ran"
        : isLeaseLost(error)
          ? "abandoned: another worker took over the agent"
          : `failed: ${error instanceof Error ? error.message : String(error)}`;
      await attempt.reportFailure(reason, "closed", false);
    }
    throw error;
  }
}

async function compactOnce(attempt: CompactionAttempt): Promise<CompactionOutcome> {
  const { deps, job, where, compactionKey } = attempt;
  const gate = await deps.breaker.check(
    job.agentId,
    job.trigger === "overflow" ? { bypass: "overflow" } : {},
  );
  // Granting the half-open trial is the breaker's change from open (a bypass changes no state).
  if (gate.allowed && gate.state === "half_open" && !gate.bypassed) {
    deps.log.info({ breaker: "half_open" }, "compaction breaker half-open: one summary attempt on trial");
  }
  if (!gate.allowed) {
    await attempt.reportFailure(`circuit breaker ${gate.state}: summary not attempted`, gate.state, false);
    return { kind: "blocked", reason: `breaker ${gate.state}`, retryAt: gate.retryAt };
  }

  const context = await loadAgentContext(deps, job.agentId);
  const before = projectContext(deps, context);
  noteProjection(before);
  attempt.started = true;
  await deps.events.emit({
    ...where,
    type: "compaction.started",
    data: {
      compactionKey,
      trigger: job.trigger,
      tokensBefore: before.tokens,
      ...economyFields(job.trigger, before),
    },
  });
  const prepared = await takePreparedSummary(deps, job, context, before);
  const plan = prepared?.plan ?? planFor(deps, job, context, before);
  if (!plan) return nothingToSummarize(attempt, { before, context }, gate.state);
  if (plan.progress.skippable && job.trigger === "auto") {
    return noProgress(attempt, plan);
  }

  // The working-state ledger: the compacted facts folded into the previous ledger (pure code).
  const ledger = updateLedger({
    previous: context.compaction?.ledger ?? null,
    messages: plan.ledgerSources,
    state: {
      plan: context.state.plan,
      todos: context.state.todos,
      pendingApprovals: context.state.pendingApprovals,
    },
  });
  const retained = context.facts.filter((fact) => fact.seq >= plan.cutoffIndex);
  // What the cut must keep (system prompt, latest user message, active tool loop, the tail with it) is
  // over the limit with no summary at all: no summary can make it fit, so none is asked for, and nothing
  // is recorded — the compaction in force keeps its summary.
  const alone = fitDraft(
    attempt,
    { before, context },
    {
      fixed: compactionFields(plan, ""),
      historyFile: null,
      ledger,
      retained,
      fit: (common) => fitCompaction({ ...common, plan, summaryText: "" }),
    },
    [],
    deps.now(),
  ).fit;
  if (!alone.verdict.ok) {
    if (job.trigger === "manual") await recordManualCompaction(attempt, alone.verdict.reason);
    await attempt.reportFailure(alone.verdict.reason, "closed", true, alone.fields.shrunk);
    return { kind: "exhausted", reason: alone.verdict.reason };
  }

  const summary = prepared
    ? { text: prepared.text, cost: undefined }
    : await summarize(attempt, plan, context);
  if ("outcome" in summary) {
    if (job.trigger === "manual") await recordManualCompaction(attempt, summary.outcome.reason);
    return summary.outcome;
  }

  // Offload (sanitized, I5); a failure is reported but does not block the summary.
  const historyFile = historyFilePath(context.thread.workspaceDir, job.threadId, job.agentId);
  const offload = await offloadHistory(
    historyFile,
    sanitizeMessages(toChatMessages(plan.toSummarize)).map((message, index) => ({
      ...message,
      id: plan.toSummarize[index]?.id,
      seq: plan.toSummarize[index]?.seq,
    })),
    compactionKey,
  );
  return recordFit(
    attempt,
    { before, context },
    {
      fixed: compactionFields(plan, summary.text),
      historyFile: offload.ok ? historyFile : null,
      ledger,
      retained,
      warnings: offload.ok ? [] : [`history offload failed: ${offload.error}`],
      fit: (common) => fitCompaction({ ...common, plan, summaryText: summary.text }),
      summaryForm: plan.request.form,
      ...(summary.cost ? { summaryCost: summary.cost } : {}),
      ...(prepared ? { prepared: true } : {}),
    },
  );
}

/**
 * The agent's summary prepared in the background (prepare-summary.ts), with the plan that applies it
 * (planCompaction's `preparedCutoff`: the usual cut, the messages after the summary's end carried by the
 * ledger) — when it was made on the compaction in force and the compaction it gives makes progress. One
 * still being made is waited for (its call started earlier than any new one would; see
 * waitForPreparedText). Taken from the store either way: once a compaction ran, it is stale.
 */
async function takePreparedSummary(
  deps: RuntimeDeps,
  job: LeasedCompactJob,
  context: AgentContext,
  before: Projection,
): Promise<{ plan: CompactionPlan; text: string } | null> {
  if (job.trigger === "manual" || (job.strategy ?? "partial") !== "partial") return null;
  let prepared = await deps.store.preparedSummaries.get(job.agentId);
  if (!prepared) return null;
  if (!preparedOnBase(prepared, context.compaction)) {
    await deps.store.preparedSummaries.remove(job.agentId, prepared.compactionKey);
    return null;
  }
  if (prepared.summaryText === null) {
    prepared = await waitForPreparedText(deps, job, context, prepared);
    if (!prepared || !preparedOnBase(prepared, context.compaction)) return null;
  }
  await deps.store.preparedSummaries.remove(job.agentId, prepared.compactionKey);
  if (prepared.summaryText === null) return null;
  const plan = planFor(deps, job, context, before, prepared.cutoffMessageId);
  if (!plan || plan.progress.noProgress) return null;
  return { plan, text: prepared.summaryText };
}

/** Longest wait for a background summary still being made (a slow summarizer, or one whose job died). */
const PREPARED_WAIT_MS = 60_000;

/**
 * Waits until the agent's prepared summary has its text, is gone (failed) or was replaced, each said by a
 * `compaction.prepared` event of the agent (the log is read again at each), for as long as its call may
 * still run (the profile's model timeout from its start), at most PREPARED_WAIT_MS.
 */
async function waitForPreparedText(
  deps: RuntimeDeps,
  job: LeasedCompactJob,
  context: AgentContext,
  found: PreparedSummaryRow,
): Promise<PreparedSummaryRow | null> {
  const deadline = Math.min(found.preparedAt + context.profile.modelTimeoutMs, deps.now() + PREPARED_WAIT_MS);
  let afterSeq = await deps.store.events.head(job.threadId);
  for (;;) {
    const current = await deps.store.preparedSummaries.get(job.agentId);
    if (current === null || current.summaryText !== null) return current;
    const left = deadline - deps.now();
    if (left <= 0 || job.signal.aborted) return current;
    const event = await waitForEvent(deps, undefined, {
      threadId: job.threadId,
      afterSeq,
      matches: (event) => event.type === "compaction.prepared" && event.agentId === job.agentId,
      timeoutMs: left,
      signal: job.signal,
    });
    if (event === null) return deps.store.preparedSummaries.get(job.agentId);
    afterSeq = event.seq;
  }
}

/**
 * The cut and the summary request, or null when nothing new lies before the kept tail. The summary
 * request continues the agent's own (`before`: its system prompt, tools and messages as they would be
 * sent) so the provider's prefix cache serves it — unless another model summarizes, which shares no
 * cache with the agent's.
 */
export function planFor(
  deps: RuntimeDeps,
  job: Pick<LeasedCompactJob, "strategy">,
  context: AgentContext,
  before: Projection,
  preparedCutoff?: string,
): CompactionPlan | null {
  const input = {
    systemPrompt: context.systemPrompt,
    prefix: context.prefix,
    messages: context.facts,
    compaction: context.compaction,
    state: { plan: context.state.plan, todos: context.state.todos },
    profile: context.profile,
    now: deps.now(),
    tokenizer: deps.tokenizer,
    tools: toolsFor(deps, context.agent),
  };
  return planCompaction(input, {
    strategy: job.strategy ?? "partial",
    timeZone: deps.timeZone,
    summarizerModel: context.profile.summarizerModel ?? context.profile.model,
    foldPrefix: context.prefix.length > 0,
    projection: before,
    // The runner reports a compaction that would make no progress itself (noProgress below).
    noProgress: "plan",
    ...(preparedCutoff === undefined ? {} : { preparedCutoff }),
  });
}

/**
 * A compaction that would save less than a fifth of the request while the deterministic projection
 * fits: not worth a summary call and a rewrite of the whole request. Skipped with an event; the next
 * step goes on with the deterministic projection without asking again (compactionDeferred).
 */
async function noProgress(attempt: CompactionAttempt, plan: CompactionPlan): Promise<CompactionOutcome> {
  const { deps, job, where, compactionKey } = attempt;
  const { tokensBefore, expectedTokensAfter } = plan.progress;
  const reason = `no progress: a compaction would take the request from ${tokensBefore} to about ${expectedTokensAfter} tokens (less than ${Math.round(MIN_COMPACTION_PROGRESS * 100)} % saved); the deterministic projection fits, so the agent goes on with it`;
  attempt.ended = true;
  await deps.events.emit({
    ...where,
    type: "compaction.skipped",
    data: { compactionKey, trigger: job.trigger, reason },
  });
  return { kind: "nothing", reason };
}

/**
 * Nothing new to summarize. Within the limit, the compaction is skipped (not a failure; the breaker is
 * not involved). Over it, the tail kept after the summary grew: the compaction in force is fitted again
 * (its restored files, summary and ledger shrink) before anything is refused, with no model call.
 */
async function nothingToSummarize(
  attempt: CompactionAttempt,
  measured: { before: Projection; context: AgentContext },
  breaker: "closed" | "open" | "half_open",
): Promise<CompactionOutcome> {
  const { deps, job, where, compactionKey } = attempt;
  const { before, context } = measured;
  const verdict = verifyProjection(before);
  const compaction = context.compaction;
  if (!verdict.ok && compaction) {
    const { id: _id, createdAt: _at, tokensBefore: _b, tokensAfter: _a, ...kept } = compaction;
    return recordFit(attempt, measured, {
      fixed: {
        cutoffMessageId: kept.cutoffMessageId,
        cutoffIndex: kept.cutoffIndex,
        summaryMessage: kept.summaryMessage,
        pinnedMessage: kept.pinnedMessage,
        strategy: kept.strategy,
        includesPrefix: kept.includesPrefix,
      },
      historyFile: kept.historyFile,
      ledger: kept.ledger ?? updateLedger({ messages: [] }),
      retained: context.facts.filter((fact) => fact.seq >= kept.cutoffIndex),
      warnings: [],
      fit: (common) => refitCompaction({ ...common, summaryMessage: kept.summaryMessage }),
    });
  }
  if (!verdict.ok) {
    await attempt.reportFailure(verdict.reason, breaker, true);
    if (job.trigger === "manual") await recordManualCompaction(attempt, "nothing to compact");
    return { kind: "exhausted", reason: verdict.reason };
  }
  const reason = "nothing to compact: the history is already within the kept window";
  attempt.ended = true;
  await deps.events.emit({
    ...where,
    type: "compaction.skipped",
    data: { compactionKey, trigger: job.trigger, reason },
  });
  if (job.trigger === "manual") await recordManualCompaction(attempt, "nothing to compact");
  return { kind: "nothing", reason };
}
