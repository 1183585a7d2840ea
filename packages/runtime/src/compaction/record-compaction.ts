import {
  type CompactionFit,
  type compactionFields,
  type FitCompactionInput,
  type FittedFields,
  type Projection,
  workingFiles,
} from "@longrun/compaction";
import type { CallCost, CompactionEvent, Ledger } from "@longrun/protocol";
import type { AgentContext } from "../context/agent-context.ts";
import { projectContext, restorationBudgetsFor } from "../context/projection.ts";
import { appendFact } from "../events/append-fact.ts";
import { lastWriteSeen } from "../snapshots/last-write.ts";
import { compactionStage } from "../tracing/compaction-span.ts";
import type { CompactionAttempt, CompactionOutcome } from "./compaction-attempt.ts";
import { readRecentFiles } from "./read-recent-files.ts";

/** Files the ledger says the agent was working on that are read for restoration (newest first). */
const RESTORE_CANDIDATES = 8;

type FitCommon = Omit<FitCompactionInput, "plan" | "summaryText">;

/** A compaction ready to be fitted and recorded. */
export interface CompactionDraft {
  fixed: ReturnType<typeof compactionFields>;
  historyFile: string | null;
  ledger: Ledger;
  retained: AgentContext["facts"];
  warnings: string[];
  fit: (common: FitCommon) => CompactionFit;
  /** The summary call's form (absent: no summary call, a refit). */
  summaryForm?: "continuation" | "standalone";
  /** The summary was prepared in the background: no summary call was made now. */
  prepared?: boolean;
  /** What the summary call cost. */
  summaryCost?: CallCost;
}

/**
 * Fits a compaction (restored files, summary, ledger, in that order of shrinking), records it while
 * this worker holds the lease, and reports it: completed, or refused when even the verbatim part
 * and the tail the cut kept are over the limit.
 */
export function recordFit(
  attempt: CompactionAttempt,
  measured: { before: Projection; context: AgentContext },
  draft: CompactionDraft,
): Promise<CompactionOutcome> {
  return compactionStage("record", () => fitAndRecord(attempt, measured, draft));
}

async function fitAndRecord(
  attempt: CompactionAttempt,
  measured: { before: Projection; context: AgentContext },
  draft: CompactionDraft,
): Promise<CompactionOutcome> {
  const { deps, job, where } = attempt;
  const { context, before } = measured;
  // The files the ledger says the agent was working on are the ones restoration re-reads.
  const working = workingFiles(draft.ledger, RESTORE_CANDIDATES);
  const read = await readRecentFiles(
    context.thread.workspaceDir,
    working.map((file, index) => ({ path: file.path, readAt: working.length - index })),
    RESTORE_CANDIDATES,
    lastWriteSeen(deps.store, context.thread, job.agentId, context.state.recentFiles),
  );
  // Restored files are stamped with the event's time, as every rebuild of the projection does.
  const createdAt = deps.now();
  const files = read.map((file) => ({ ...file, readAt: createdAt }));
  const { fit, provisional } = fitDraft(attempt, measured, draft, files, createdAt);
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
    await recordManualCompaction(attempt, `${before.tokens} → ${after.tokens} tokens`);

  const restoredSummary = fit.fields.restored.map(({ content: _content, ...item }) => item);
  if (!fit.verdict.ok) {
    // Every shrink was tried (fit.fields.shrunk) and what is left — the verbatim part (system prompt,
    // latest user message, active tool loop) and the tail the cut kept with it — is over the limit.
    await attempt.reportFailure(fit.verdict.reason, "closed", true, fit.fields.shrunk);
    return { kind: "exhausted", reason: fit.verdict.reason };
  }
  attempt.ended = true;
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
      ...economyFields(job.trigger, before),
      ...(draft.summaryForm ? { summaryForm: draft.summaryForm } : {}),
      ...(draft.summaryCost ? { summaryCost: draft.summaryCost } : {}),
      ...(draft.prepared ? { prepared: true } : {}),
    },
  });
  return {
    kind: "compacted",
    compactionId: event.id,
    tokensBefore: before.tokens,
    tokensAfter: after.tokens,
  };
}

/**
 * Fits a draft compaction against the projection it would give (restored files, summary, ledger shrunk
 * in that order while over the limit). With `files` empty and an empty summary text it tells whether
 * any summary could make the request fit (the verbatim part and the tail the cut keeps, alone).
 */
export function fitDraft(
  attempt: Pick<CompactionAttempt, "deps" | "job">,
  measured: { before: Projection; context: AgentContext },
  draft: Pick<CompactionDraft, "fixed" | "historyFile" | "ledger" | "retained" | "fit">,
  files: FitCommon["files"],
  createdAt: number,
) {
  const { deps, job } = attempt;
  const { context, before } = measured;
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
  return { fit, provisional };
}

/** The visible record of a manual `/compact` (a fact), so the transcript shows what happened. */
export async function recordManualCompaction(attempt: CompactionAttempt, detail: string) {
  const { deps, job } = attempt;
  await appendFact(
    deps,
    { threadId: job.threadId, agentId: job.agentId, runId: job.runId, fence: job.fence },
    { role: "user", name: "compact_command", content: `/compact (${detail})` },
  );
}

/** Why an automatic compaction ran and what the cost model expected it to save (see compactionNeed). */
export function economyFields(
  trigger: string,
  before: Projection,
): { reason?: "must" | "cheaper"; expectedSaving?: number } {
  const need = before.compactionNeed;
  if (trigger !== "auto" || need === null) return {};
  return { reason: need.need, expectedSaving: need.expectedSaving };
}
