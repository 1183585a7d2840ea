import type { ChatMessage, CompactionEvent, CompactionStrategy, StoredMessage } from "@longrun/protocol";
import { resolveBoundary } from "./boundary.ts";
import { expectedCompactedTokens, maxKeptTokens, summaryBudgetTokens } from "./compaction-budget.ts";
import { isNoProgress } from "./compaction-economy.ts";
import { selectCutoff } from "./cutoff.ts";
import { splitPrefixSystem } from "./fork-system.ts";
import { type LedgerSource, ledgerSources } from "./ledger/update-ledger.ts";
import { type Projection, type ProjectionInput, project } from "./project.ts";
import { repairToolPairs } from "./repair.ts";
import { sanitizeMessages } from "./sanitize.ts";
import { buildContinuationRequest } from "./summary-continuation.ts";
import { buildSummaryMessage, type SummaryMeta, summaryTextOf } from "./summary-message.ts";
import { buildSummaryRequest, type SummaryKind, type SummaryRequest } from "./summary-request.ts";
import { thresholds } from "./thresholds.ts";
import { toChatMessages } from "./to-chat.ts";
import { estimateMessageTokens, estimateStoredTokens, estimateToolsTokens } from "./tokenizer.ts";
import { verifyProjection } from "./verify.ts";

/** Extra input of planCompaction beyond the projection input. */
export interface CompactionPlanOptions {
  strategy?: CompactionStrategy;
  /** The user's IANA time zone, told to the summarizer. */
  timeZone: string;
  /** Summarizer window when it differs from the agent's model (default: the agent's limit). */
  summarizerWindowTokens?: number;
  summarizerMaxOutputTokens?: number;
  summarizerModel?: string;
  /**
   * Fold a fork's inherited prefix into the summary (the first compaction of a forked sub-agent),
   * so a prefix that fills the window does not make the sub-agent's context unshrinkable.
   */
  foldPrefix?: boolean;
  /**
   * "standalone": the summarizer gets its own request. "continuation": the agent's own request plus
   * the instruction, falling back to standalone when it would not fit the summarizer's window.
   * Default: standalone when `summarizerModel` is another model than the agent's (it shares no cache
   * with the agent's), else continuation.
   */
  form?: "continuation" | "standalone";
  /** The projection of `input` the agent would get now (computed when absent). */
  projection?: Projection;
  /**
   * "skip" (default): no plan (null) when the compaction would make no progress (isNoProgress) and the
   * deterministic projection fits the limit — the agent goes on with that instead. "plan": return the
   * plan anyway, `progress` says so (a caller that reports the skip itself).
   */
  noProgress?: "skip" | "plan";
  /**
   * The first message a summary prepared in the background does not cover (see prepared-summary.ts).
   * The plan cuts where it would anyway when that is at or after this message — the messages between
   * are then carried by the ledger alone (`summaryMeta.textThroughSeq`) — else exactly before it. Null
   * plan when the prepared summary covers nothing of the history in force, or its cut is no longer one.
   */
  preparedCutoff?: string;
}

/** What a compaction is expected to achieve, measured before the summary call. */
export interface CompactionProgress {
  /** Pressure of the request the agent would send without it. */
  tokensBefore: number;
  /** Expected pressure after it (overhead, summary and ledger budgets, the kept tail). */
  expectedTokensAfter: number;
  /** It would save less than MIN_COMPACTION_PROGRESS of the request. */
  noProgress: boolean;
  /** No progress, and the deterministic projection fits the limit: the agent can go on without it. */
  skippable: boolean;
}

/** What a runner needs to summarize and then persist a compaction event. */
export interface CompactionPlan {
  /** The summary covers the fork prefix (folded now or by an earlier compaction). */
  includesPrefix: boolean;
  strategy: CompactionStrategy;
  cutoffMessageId: string | null;
  cutoffIndex: number;
  pinnedMessage: ChatMessage | null;
  /** Facts the summary replaces (to offload to the history file). */
  toSummarize: StoredMessage[];
  /** What the ledger folds in: a folded fork prefix (no steps), then the facts summarized. */
  ledgerSources: LedgerSource[];
  request: SummaryRequest;
  summaryMeta: SummaryMeta;
  progress: CompactionProgress;
}

/**
 * Chooses the cutoff and builds the summarizer request: the agent's own request continued (see
 * buildContinuationRequest), or a standalone one (sanitized, repaired, bounded, previous summary
 * folded in). Null when there is nothing before the cut to summarize, or (see `noProgress`) when
 * it would save less than a fifth of the request and the deterministic projection fits.
 */
export function planCompaction(
  input: ProjectionInput,
  options: CompactionPlanOptions,
): CompactionPlan | null {
  const { compaction, tokenizer, profile } = input;
  const boundary = resolveBoundary(input.messages, compaction);
  const facts = input.messages.slice(boundary.startIndex);
  const strategy = options.strategy ?? "partial";
  // The prefix's system prompt stays out of the fold: it is sent before the summary ever after.
  const split = splitPrefixSystem(input.prefix ?? []);
  const prefix = options.foldPrefix && compaction?.includesPrefix !== true ? split.rest : [];
  // The fixed overhead is budgeted as a whole: what stays sent besides the summary and the tail
  // (after a fold, that includes the prefix's system prompt).
  const sentPrefix =
    prefix.length > 0 || compaction?.includesPrefix === true ? split.system : (input.prefix ?? []);
  const overhead =
    (input.systemPrompt === null
      ? 0
      : estimateMessageTokens({ role: "system", content: input.systemPrompt }, tokenizer)) +
    estimateToolsTokens(input.tools, tokenizer) +
    sentPrefix.reduce((sum, message) => sum + estimateMessageTokens(message, tokenizer), 0);
  const maxKept = maxKeptTokens(profile, overhead);
  const cutOptions = {
    strategy,
    tokenizer,
    previousPinned: compaction?.pinnedMessage ?? null,
    ...(maxKept === null ? {} : { maxKeptTokens: maxKept }),
  };
  let cut = selectCutoff(facts, profile, cutOptions);
  let textThroughSeq: number | undefined;
  if (options.preparedCutoff !== undefined) {
    const covered = cut.toSummarize.findIndex((fact) => fact.id === options.preparedCutoff);
    if (covered === 0) return null;
    if (covered > 0) textThroughSeq = cut.toSummarize[covered - 1]?.seq;
    else if (cut.cutoffMessageId !== options.preparedCutoff) {
      cut = selectCutoff(facts, profile, { ...cutOptions, at: options.preparedCutoff });
      if (!cut.forced) return null;
    }
  }
  if (cut.toSummarize.length === 0 && prefix.length === 0) return null;
  const wire = toChatMessages(cut.toSummarize);
  const repaired = repairToolPairs(wire);
  const summarized = [...sanitizeMessages(prefix), ...repaired.messages];
  // The store's count of each fact, where repair left its message as it was: not tokenized again.
  const messageTokens = [
    ...prefix.map(() => null),
    ...repaired.messages.map((message, index) => {
      const source = repaired.sourceIndex[index];
      if (source === null || source === undefined || message !== wire[source]) return null;
      return cut.toSummarize[source]?.tokenCount ?? null;
    }),
  ];
  const projection = options.projection ?? project(input);
  // Measured before any request is built: a compaction that would make no progress needs none.
  const keptTokens =
    cut.kept.reduce(
      (sum, fact) => sum + (fact.tokenCount > 0 ? fact.tokenCount : estimateStoredTokens(fact, tokenizer)),
      0,
    ) + (cut.pinned ? estimateMessageTokens(cut.pinned, tokenizer) : 0);
  const expectedTokensAfter = expectedCompactedTokens(profile, overhead, keptTokens, true);
  const noProgress = isNoProgress(projection.tokens, expectedTokensAfter);
  const progress: CompactionProgress = {
    tokensBefore: projection.tokens,
    expectedTokensAfter,
    noProgress,
    skippable: noProgress && verifyProjection(projection).ok,
  };
  if (progress.skippable && options.noProgress !== "plan") return null;
  const limits = thresholds(profile);
  const kind: SummaryKind = strategy === "partial" ? "prefix" : "segment";
  const maxOutputTokens = options.summarizerMaxOutputTokens ?? summaryBudgetTokens(profile);
  // Another model shares no prompt cache with the agent's: it gets its own, standalone request.
  const form =
    options.form ??
    (options.summarizerModel !== undefined && options.summarizerModel !== profile.model
      ? "standalone"
      : "continuation");
  const keptIds = new Set(cut.kept.map((fact) => fact.id));
  const firstKept = projection.continuation.sourceIds.findIndex((id) => id !== null && keptIds.has(id));
  const continuation =
    form === "standalone"
      ? null
      : buildContinuationRequest({
          agentRequest: projection.continuation,
          tools: input.tools ?? [],
          keptMessages: firstKept < 0 ? 0 : projection.continuation.messages.length - firstKept,
          kind,
          now: input.now,
          timeZone: options.timeZone,
          tokenizer,
          windowTokens: options.summarizerWindowTokens ?? profile.maxInputTokens ?? limits.limitTokens,
          maxOutputTokens,
          ...(options.summarizerModel ? { model: options.summarizerModel } : {}),
        });
  const request =
    continuation ??
    buildSummaryRequest({
      messages: summarized,
      kind,
      // The summarizer folds in the previous summary without its ledger: the summary never depends on it.
      previousSummary: compaction ? summaryTextOf(compaction.summaryMessage) : null,
      now: input.now,
      timeZone: options.timeZone,
      tokenizer,
      messageTokens,
      windowTokens: options.summarizerWindowTokens ?? limits.limitTokens,
      maxOutputTokens,
      ...(options.summarizerModel ? { model: options.summarizerModel } : {}),
    });
  const first = cut.toSummarize[0];
  const last = cut.toSummarize[cut.toSummarize.length - 1];
  return {
    includesPrefix: prefix.length > 0 || compaction?.includesPrefix === true,
    strategy,
    cutoffMessageId: cut.cutoffMessageId,
    cutoffIndex: cut.cutoffIndex,
    pinnedMessage: cut.pinned,
    toSummarize: cut.toSummarize,
    ledgerSources: [
      ...sanitizeMessages(prefix).map((message) => ({ message, step: null })),
      ...ledgerSources(cut.toSummarize),
    ],
    request,
    progress,
    summaryMeta: {
      strategy,
      summarizedMessages: cut.toSummarize.length + prefix.length,
      ...(first && last ? { firstSeq: first.seq, lastSeq: last.seq } : {}),
      ...(textThroughSeq === undefined ? {} : { textThroughSeq }),
    },
  };
}

/** The event fields that follow from a plan and the summarizer's text (and a rendered ledger). */
export function compactionFields(
  plan: CompactionPlan,
  summaryText: string,
  ledgerText: string | null = null,
): Pick<
  CompactionEvent,
  "cutoffMessageId" | "cutoffIndex" | "summaryMessage" | "pinnedMessage" | "strategy" | "includesPrefix"
> {
  return {
    includesPrefix: plan.includesPrefix,
    cutoffMessageId: plan.cutoffMessageId,
    cutoffIndex: plan.cutoffIndex,
    summaryMessage: buildSummaryMessage(summaryText, plan.summaryMeta, ledgerText),
    pinnedMessage: plan.pinnedMessage,
    strategy: plan.strategy,
  };
}
