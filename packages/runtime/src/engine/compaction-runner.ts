import {
  type CompactionFit,
  compactionFields,
  type FitCompactionInput,
  type FittedFields,
  fitCompaction,
  type Projection,
  planCompaction,
  refitCompaction,
  sanitizeMessages,
  toChatMessages,
  updateLedger,
  verifyProjection,
  workingFiles,
} from "@longrun/compaction";
import type { CompactionEvent, CompactionShrink, Ledger } from "@longrun/protocol";
import { isLeaseLost, newId } from "@longrun/store";
import { withProviderRetry } from "../retry.ts";
import { type AgentContext, loadAgentContext } from "./agent-context.ts";
import { toolsFor } from "./agent-tools.ts";
import { appendFact } from "./append-fact.ts";
import { historyFilePath, offloadHistory } from "./history-file.ts";
import { callSummarizer } from "./model-call.ts";
import { projectContext, restorationBudgetsFor } from "./projection.ts";
import { readRecentFiles } from "./read-recent-files.ts";
import type { CompactJob, RuntimeDeps } from "./runtime-deps.ts";

/** Files the ledger says the agent was working on that are read for restoration (newest first). */
const RESTORE_CANDIDATES = 8;

export type CompactionOutcome =
  | { kind: "compacted"; compactionId: string; tokensBefore: number; tokensAfter: number }
  | { kind: "nothing"; reason: string }
  | { kind: "failed"; reason: string; retryAt?: number }
  | { kind: "blocked"; reason: string; retryAt?: number }
  | { kind: "exhausted"; reason: string };

/**
 * One LLM compaction of one agent: breaker gate, summary of the older prefix (sanitized request,
 * no tools), offload of the compacted source to the history file, restoration of recent files and
 * the plan, the persisted compaction event, and the post-compaction check (I6).
 * A manual compaction also appends the visible `/compact` record and nothing else (I7).
 */
export async function runCompaction(
  deps: RuntimeDeps,
  job: CompactJob & { fence: number; signal: AbortSignal; compactionKey?: string },
): Promise<CompactionOutcome> {
  const progress: Progress = { started: false, ended: false };
  const compactionKey = job.compactionKey ?? newId();
  try {
    return await compactOnce(deps, job, compactionKey, progress);
  } catch (error) {
    // Every `compaction.started` gets its terminal event, whatever ended the attempt (a cancel, a
    // lost lease, a failed write).
    if (progress.started && !progress.ended) {
      const reason = job.signal.aborted
        ? "cancelled: the run was cancelled while the compaction ran"
        : isLeaseLost(error)
          ? "abandoned: another worker took over the agent"
          : `failed: ${error instanceof Error ? error.message : String(error)}`;
      await deps.events.emit({
        threadId: job.threadId,
        agentId: job.agentId,
        runId: job.runId,
        type: "compaction.failed",
        data: { compactionKey, trigger: job.trigger, reason, breaker: "closed", contextExhausted: false },
      });
    }
    throw error;
  }
}

/** Whether this attempt announced its start, and its end. */
interface Progress {
  started: boolean;
  ended: boolean;
}

async function compactOnce(
  deps: RuntimeDeps,
  job: CompactJob & { fence: number; signal: AbortSignal },
  compactionKey: string,
  progress: Progress,
): Promise<CompactionOutcome> {
  const where = { threadId: job.threadId, agentId: job.agentId, runId: job.runId };
  const reportFailure = (
    reason: string,
    breaker: "closed" | "open" | "half_open",
    contextExhausted: boolean,
    shrunk?: CompactionShrink[],
  ) => {
    progress.ended = true;
    return deps.events.emit({
      ...where,
      type: "compaction.failed",
      data: {
        compactionKey,
        trigger: job.trigger,
        reason,
        breaker,
        contextExhausted,
        ...(shrunk ? { shrunk } : {}),
      },
    });
  };
  const gate = await deps.breaker.check(
    job.agentId,
    job.trigger === "overflow" ? { bypass: "overflow" } : {},
  );
  if (!gate.allowed) {
    await reportFailure(`circuit breaker ${gate.state}: summary not attempted`, gate.state, false);
    return { kind: "blocked", reason: `breaker ${gate.state}`, retryAt: gate.retryAt };
  }

  const context = await loadAgentContext(deps, job.agentId);
  const before = projectContext(deps, context);
  progress.started = true;
  await deps.events.emit({
    ...where,
    type: "compaction.started",
    data: { compactionKey, trigger: job.trigger, tokensBefore: before.tokens },
  });
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
  const plan = planCompaction(input, {
    strategy: job.strategy ?? "partial",
    timeZone: deps.timeZone,
    summarizerModel: context.profile.summarizerModel ?? context.profile.model,
    foldPrefix: context.prefix.length > 0,
  });
  if (!plan) {
    const verdict = verifyProjection(before);
    const compaction = context.compaction;
    if (!verdict.ok && compaction) {
      // Nothing new to summarize, yet over the limit: the tail kept after the summary grew. The
      // compaction in force is fitted again (its restored files, summary and ledger shrink) before
      // anything is refused; no model call, the breaker is not involved.
      const { id: _id, createdAt: _at, tokensBefore: _b, tokensAfter: _a, ...kept } = compaction;
      return recordFit(
        deps,
        job,
        { compactionKey, progress, reportFailure, before, context },
        {
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
        },
      );
    }
    if (!verdict.ok) {
      await reportFailure(verdict.reason, gate.state, true);
      if (job.trigger === "manual") await recordManualCompaction(deps, job, "nothing to compact");
      return { kind: "exhausted", reason: verdict.reason };
    }
    // Nothing to do is not a failure: it is reported as skipped, the breaker is not involved.
    const reason = "nothing to compact: the history is already within the kept window";
    progress.ended = true;
    await deps.events.emit({
      ...where,
      type: "compaction.skipped",
      data: { compactionKey, trigger: job.trigger, reason },
    });
    if (job.trigger === "manual") await recordManualCompaction(deps, job, "nothing to compact");
    return { kind: "nothing", reason };
  }

  let summaryText: string;
  try {
    summaryText = await withProviderRetry(
      () =>
        callSummarizer(deps.model, {
          model: plan.request.model ?? context.profile.model,
          messages: plan.request.messages,
          maxOutputTokens: plan.request.max_tokens,
          headers: deps.modelHeaders?.(job.agentId),
          signal: job.signal,
        }),
      // Summary failures are counted by the breaker; only transient overload is retried here.
      { maxAttempts: 2, baseMs: deps.retry?.baseMs, maxMs: deps.retry?.maxMs, signal: job.signal },
    );
  } catch (error) {
    // A cancel is not the summarizer's failure: the breaker does not count it.
    if (job.signal.aborted) throw error;
    const reason = `summary failed: ${error instanceof Error ? error.message : String(error)}`;
    const failure = await deps.breaker.recordFailure(job.agentId);
    if (failure.opened) {
      await deps.events.emit({
        ...where,
        type: "breaker.opened",
        data: {
          failures: failure.failures,
          cooldownMs: failure.cooldownMs,
          openUntil: failure.openUntil ?? deps.now(),
        },
      });
    }
    await reportFailure(reason, failure.state, false);
    if (job.trigger === "manual") await recordManualCompaction(deps, job, reason);
    return {
      kind: "failed",
      reason,
      retryAt: failure.state === "closed" ? undefined : (failure.openUntil ?? undefined),
    };
  }
  const success = await deps.breaker.recordSuccess(job.agentId);
  if (success.closed) {
    await deps.events.emit({ ...where, type: "breaker.closed", data: { failures: success.failures } });
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
  const fixed = compactionFields(plan, summaryText);
  const retained = context.facts.filter((fact) => fact.seq >= plan.cutoffIndex);
  return recordFit(
    deps,
    job,
    { compactionKey, progress, reportFailure, before, context },
    {
      fixed,
      historyFile: offload.ok ? historyFile : null,
      ledger,
      retained,
      warnings: offload.ok ? [] : [`history offload failed: ${offload.error}`],
      fit: (common) => fitCompaction({ ...common, plan, summaryText }),
    },
  );
}

type FitCommon = Omit<FitCompactionInput, "plan" | "summaryText">;

/** What recordFit needs of the attempt that leads to it. */
interface Attempt {
  compactionKey: string;
  progress: Progress;
  reportFailure: (
    reason: string,
    breaker: "closed",
    contextExhausted: boolean,
    shrunk?: CompactionShrink[],
  ) => Promise<unknown>;
  before: Projection;
  context: AgentContext;
}

/**
 * Fits a compaction (restored files, summary, ledger, in that order of shrinking), records it while
 * this worker holds the lease, and reports it: completed, or refused when even the verbatim part
 * and the tail the cut kept are over the limit.
 */
async function recordFit(
  deps: RuntimeDeps,
  job: CompactJob & { fence: number; signal: AbortSignal },
  attempt: Attempt,
  draft: {
    fixed: ReturnType<typeof compactionFields>;
    historyFile: string | null;
    ledger: Ledger;
    retained: AgentContext["facts"];
    warnings: string[];
    fit: (common: FitCommon) => CompactionFit;
  },
): Promise<CompactionOutcome> {
  const { context, before } = attempt;
  const where = { threadId: job.threadId, agentId: job.agentId, runId: job.runId };
  // The files the ledger says the agent was working on are the ones restoration re-reads.
  const working = workingFiles(draft.ledger, RESTORE_CANDIDATES);
  const read = await readRecentFiles(
    context.thread.workspaceDir,
    working.map((file, index) => ({ path: file.path, readAt: working.length - index })),
    RESTORE_CANDIDATES,
  );
  // Restored files are stamped with the event's time, as every rebuild of the projection does.
  const createdAt = deps.now();
  const files = read.map((file) => ({ ...file, readAt: createdAt }));
  const provisional = (fields: FittedFields): CompactionEvent => ({
    id: "provisional",
    agentId: job.agentId,
    ...draft.fixed,
    summaryMessage: fields.summaryMessage,
    ledger: fields.ledger,
    shrunk: fields.shrunk,
    historyFile: draft.historyFile,
    trigger: job.trigger,
    tokensBefore: before.tokens,
    tokensAfter: 0,
    restored: fields.restored,
    createdAt,
  });
  const fit = draft.fit({
    ledger: draft.ledger,
    files,
    restorationCap: restorationBudgetsFor(context.profile),
    historyFile: draft.historyFile,
    profile: context.profile,
    tokenizer: deps.tokenizer,
    measure: (fields) =>
      projectContext(deps, { ...context, compaction: provisional(fields), facts: draft.retained }),
  });
  const after = fit.projection;
  const { id: _provisionalId, ...eventFields } = provisional(fit.fields);
  // Cancelled meanwhile: the run is over, its compaction is not recorded.
  if (job.signal.aborted) throw job.signal.reason ?? new Error("compaction cancelled");
  // Recorded only while this worker still holds the agent's lease.
  const event = await deps.store.compactions.insert(
    { ...eventFields, tokensAfter: after.tokens },
    { fence: job.fence },
  );
  if (job.trigger === "manual")
    await recordManualCompaction(deps, job, `${before.tokens} → ${after.tokens} tokens`);

  const restoredSummary = fit.fields.restored.map(({ content: _content, ...item }) => item);
  if (!fit.verdict.ok) {
    // Every shrink was tried (fit.fields.shrunk) and what is left — the verbatim part (system prompt,
    // latest user message, active tool loop) and the tail the cut kept with it — is over the limit.
    await attempt.reportFailure(fit.verdict.reason, "closed", true, fit.fields.shrunk);
    return { kind: "exhausted", reason: fit.verdict.reason };
  }
  attempt.progress.ended = true;
  await deps.events.emit({
    ...where,
    type: "compaction.completed",
    data: {
      compactionKey: attempt.compactionKey,
      compactionId: event.id,
      strategy: event.strategy,
      trigger: job.trigger,
      tokensBefore: before.tokens,
      tokensAfter: after.tokens,
      saved: before.saved,
      cutoffMessageId: event.cutoffMessageId,
      cutoffSeq: event.cutoffIndex,
      historyFile: event.historyFile,
      restored: restoredSummary,
      ledger: fit.fields.ledger,
      shrunk: fit.fields.shrunk,
      ...(draft.warnings.length > 0 ? { warnings: draft.warnings } : {}),
    },
  });
  return {
    kind: "compacted",
    compactionId: event.id,
    tokensBefore: before.tokens,
    tokensAfter: after.tokens,
  };
}

/** The visible record of a manual `/compact` (a fact), so the transcript shows what happened. */
async function recordManualCompaction(
  deps: RuntimeDeps,
  job: CompactJob & { fence: number },
  detail: string,
) {
  await appendFact(
    deps,
    { threadId: job.threadId, agentId: job.agentId, runId: job.runId, fence: job.fence },
    { role: "user", name: "compact_command", content: `/compact (${detail})` },
  );
}
