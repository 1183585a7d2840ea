import {
  compactionFields,
  planCompaction,
  planRestoration,
  sanitizeMessages,
  toChatMessages,
  verifyProjection,
} from "@longrun/compaction";
import type { CompactionEvent, RestoredItem } from "@longrun/protocol";
import { isLeaseLost, newId } from "@longrun/store";
import { withProviderRetry } from "../retry.ts";
import { loadAgentContext } from "./agent-context.ts";
import { toolsFor } from "./agent-tools.ts";
import { appendFact } from "./append-fact.ts";
import { historyFilePath, offloadHistory } from "./history-file.ts";
import { callSummarizer } from "./model-call.ts";
import { projectContext, restorationBudgetsFor } from "./projection.ts";
import { readRecentFiles } from "./read-recent-files.ts";
import type { CompactJob, RuntimeDeps } from "./runtime-deps.ts";

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
  ) => {
    progress.ended = true;
    return deps.events.emit({
      ...where,
      type: "compaction.failed",
      data: { compactionKey, trigger: job.trigger, reason, breaker, contextExhausted },
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
    const reason = verdict.ok
      ? "nothing to compact: the history is already within the kept window"
      : verdict.reason;
    await reportFailure(reason, gate.state, !verdict.ok);
    if (job.trigger === "manual") await recordManualCompaction(deps, job, "nothing to compact");
    return verdict.ok ? { kind: "nothing", reason } : { kind: "exhausted", reason };
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

  const files = await readRecentFiles(context.thread.workspaceDir, context.state.recentFiles);
  const restoration = planRestoration({
    files,
    state: input.state,
    tokenizer: deps.tokenizer,
    budgets: restorationBudgetsFor(context.profile),
  });
  let restored: RestoredItem[] = restoration.items.map((item) => {
    if (item.kind !== "file") return item;
    const file = files.find((candidate) => candidate.path === item.path);
    return { ...item, content: file ? Buffer.from(file.content).toString("utf8") : undefined };
  });

  const fields = compactionFields(plan, summaryText);
  const provisional: CompactionEvent = {
    id: "provisional",
    agentId: job.agentId,
    ...fields,
    historyFile: offload.ok ? historyFile : null,
    trigger: job.trigger,
    tokensBefore: before.tokens,
    tokensAfter: 0,
    restored,
    createdAt: deps.now(),
  };
  const retained = context.facts.filter((fact) => fact.seq >= plan.cutoffIndex);
  let after = projectContext(deps, { ...context, compaction: provisional, facts: retained });
  if (!verifyProjection(after).ok && restored.some((item) => item.kind === "file")) {
    // Restored files are a convenience: drop them before declaring the context exhausted.
    restored = restored.filter((item) => item.kind !== "file");
    provisional.restored = restored;
    after = projectContext(deps, { ...context, compaction: provisional, facts: retained });
  }
  const { id: _provisionalId, createdAt: _createdAt, ...eventFields } = provisional;
  // Cancelled meanwhile: the run is over, its compaction is not recorded.
  if (job.signal.aborted) throw job.signal.reason ?? new Error("compaction cancelled");
  // Recorded only while this worker still holds the agent's lease.
  const event = await deps.store.compactions.insert(
    { ...eventFields, tokensAfter: after.tokens },
    { fence: job.fence },
  );
  if (job.trigger === "manual")
    await recordManualCompaction(deps, job, `${before.tokens} → ${after.tokens} tokens`);

  const verdict = verifyProjection(after);
  const restoredSummary = restored.map(({ content: _content, ...item }) => item);
  if (!verdict.ok) {
    await reportFailure(verdict.reason, "closed", true);
    return { kind: "exhausted", reason: verdict.reason };
  }
  progress.ended = true;
  await deps.events.emit({
    ...where,
    type: "compaction.completed",
    data: {
      compactionKey,
      compactionId: event.id,
      strategy: event.strategy,
      trigger: job.trigger,
      tokensBefore: before.tokens,
      tokensAfter: after.tokens,
      saved: before.saved,
      cutoffMessageId: event.cutoffMessageId,
      historyFile: event.historyFile,
      restored: restoredSummary,
      ...(offload.ok ? {} : { warnings: [`history offload failed: ${offload.error}`] }),
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
