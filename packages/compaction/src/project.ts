import type {
  ChatMessage,
  CompactionEvent,
  ModelProfile,
  StageSavings,
  StoredMessage,
} from "@longrun/protocol";
import { PROFILE_DEFAULTS } from "@longrun/protocol";
import { assembleHeader, assembleRaw, type RepairReport } from "./assemble.ts";
import type { Boundary } from "./boundary.ts";
import type { ToolClassification } from "./classify.ts";
import { collapseTraces } from "./collapse.ts";
import {
  type CompactionDecision,
  compactionLineTokens,
  decideCompaction,
  type NeedInput,
} from "./compaction-need.ts";
import { clearOlderResults, lastActivityOf, microcompact } from "./microcompact.ts";
import { measurePressure } from "./pressure.ts";
import { projectionReason } from "./projection-reason.ts";
import type { ReductionCache } from "./reductions.ts";
import type { RestorableState, RestorationBudgets, RestoredFile } from "./restoration.ts";
import { carriesSignedThinkingOnly, hasProviderState, sanitizeMessage } from "./sanitize.ts";
import type { ProjectionMemo, RewriteReport } from "./stable.ts";
import { stableProjection } from "./stable-projection.ts";
import { thresholds } from "./thresholds.ts";
import { estimateToolsTokens, type Tokenizer, type ToolSpec } from "./tokenizer.ts";
import { truncateArguments } from "./truncate.ts";
import {
  notRun,
  type ProjectionItem,
  type ProjectionMark,
  type StageReport,
  type StageRuns,
} from "./types.ts";
import { usageAnchor } from "./usage-anchor.ts";

export type { StageReport } from "./types.ts";

/** Everything project() needs; all of it supplied by the caller (no I/O here). */
export interface ProjectionInput {
  systemPrompt: string | null;
  /** A sub-agent fork's prefix, already built. */
  prefix?: ChatMessage[];
  /** Facts at/after the boundary, or all facts when there is no compaction, in seq order. */
  messages: StoredMessage[];
  compaction: CompactionEvent | null;
  state: RestorableState | null;
  restoredFiles?: RestoredFile[];
  profile: Partial<ModelProfile>;
  /** Clock reading (ms) for the idle-gap check. */
  now: number;
  tokenizer: Tokenizer;
  /** Tool definitions sent with the request (counted toward tokens). */
  tools?: ToolSpec[];
  classification?: ToolClassification;
  restorationBudgets?: Partial<RestorationBudgets>;
  /** Tool-call arguments longer than this are truncated in older messages (default 2,000). */
  maxArgumentChars?: number;
  /**
   * Cache-stable mode: what the previous call sent (null: nothing yet). Messages keep the form they
   * were sent in until the next compaction; reductions due are applied in a batch only when it saves
   * at least `rewriteMinTokens`, or when the request would not fit otherwise (then LLM compaction is
   * asked for instead when the rewrite would leave too little room under the trigger:
   * defaultRewriteMinRoom). A rewrite also takes what would come due soon (whole read/search runs, arguments up
   * to the active loop), and clears older tool results past its first change (the
   * `microcompactKeep` most recent stay). Undefined: every call reduces from scratch.
   */
  memo?: ProjectionMemo | null;
  /** Least tokens a batched rewrite of sent messages must save (default: defaultRewriteMinTokens). */
  rewriteMinTokens?: number;
  /** Per-fact stage results of earlier calls (one per agent, kept by the caller beside the memo). */
  reductions?: ReductionCache;
}

/** The exact request messages for the next call plus the report on how they were made. */
export interface Projection {
  messages: ChatMessage[];
  marks: ProjectionMark[];
  /** Per message: the fact id it was built from (raw messages), else null. */
  sourceIds: (string | null)[];
  /** Per-message token estimates, same order as messages. */
  messageTokens: number[];
  /** Pressure of the final list (usage anchor or padded estimate; tools included). */
  tokens: number;
  /** Pressure of the assembled, repaired list before stages 5–7. */
  rawTokens: number;
  triggerTokens: number;
  /**
   * Where the next LLM compaction comes as the request grows: the trigger, or short of it where the
   * cost model finds compacting cheaper (compactionLineTokens). Background summaries start below it.
   */
  compactionLineTokens: number;
  limitTokens: number;
  saved: StageSavings;
  stages: StageReport[];
  needsCompaction: boolean;
  reason: string;
  boundary: Boundary;
  repair: RepairReport;
  /** Tokens of tool definitions included in `tokens`. */
  toolsTokens: number;
  /**
   * Why LLM compaction is asked for (`needsCompaction`): "must" (over the trigger after the deterministic
   * stages) or "cheaper" (the cost model), with the saving expected; null when it is not.
   */
  compactionNeed: CompactionDecision | null;
  /**
   * The request extending the previous call's byte for byte — messages already sent in the form they
   * were sent, new ones as assembled (cache-stable mode; otherwise the projection itself) — with its
   * pressure, and per message the fact it was built from. A summary call continues it.
   */
  continuation: { messages: ChatMessage[]; sourceIds: (string | null)[]; tokens: number };
  /** Cache-stable mode only: the memo for the next call, and what happened to due reductions. */
  memo?: ProjectionMemo;
  rewrite?: RewriteReport;
}

/**
 * Builds the projection for the next model call: boundary, assembly, repair, sanitizing, then
 * collapse → truncate → microcompact only while over the trigger, each reporting its savings.
 * With `memo` (cache-stable mode) the messages already sent keep their form; see stableStages.
 */
export function project(input: ProjectionInput): Projection {
  const { tokenizer, profile, compaction } = input;
  input.reductions?.enter(compaction?.id ?? null);
  const limits = thresholds(profile);
  const header = assembleHeader(input);
  const raw = assembleRaw(input.messages, compaction, tokenizer);
  const toolsTokens = estimateToolsTokens(input.tools, tokenizer);
  const rawSourceAnchor = usageAnchor(raw.items, raw, compaction, tokenizer);
  const anchorId = rawSourceAnchor === null ? undefined : raw.items[rawSourceAnchor.index]?.sourceId;

  /** Pressure of header + items; `credited`: tokens stages removed since what the usage measured. */
  const measure = (rawItems: readonly ProjectionItem[], credited: number): number => {
    const all = [...header, ...rawItems];
    const anchorIndex = anchorId === undefined ? -1 : all.findIndex((item) => item.sourceId === anchorId);
    const anchor =
      rawSourceAnchor !== null && anchorIndex >= 0 ? { ...rawSourceAnchor, index: anchorIndex } : null;
    const pressure = measurePressure({
      messageTokens: all.map((item) => item.tokens),
      anchor,
      extraTokens: toolsTokens,
    });
    if (pressure.anchored === null) return pressure.tokens;
    // Stages shrink what the usage report measured: credit their savings, never below the estimate.
    return Math.max(pressure.anchored - credited, pressure.estimated);
  };

  const rawTokens = measure(raw.items, 0);
  const lastActivityAt = lastActivityOf(input.messages);
  const microcompactKeep = profile.microcompactKeep ?? PROFILE_DEFAULTS.microcompactKeep;
  /**
   * The stages as a call runs them; `horizon`: as a rewrite runs them, taking what would come due soon
   * as well (whole read/search runs, arguments up to the active loop).
   */
  const stagesFor = (horizon: boolean): StageRuns => ({
    collapse: (items) =>
      collapseTraces(items, {
        tokenizer,
        ...(horizon ? { wholeRuns: true } : {}),
        ...(input.classification ? { table: input.classification } : {}),
        ...(input.reductions ? { cache: input.reductions } : {}),
      }),
    truncate: (items) =>
      truncateArguments(items, {
        tokenizer,
        maxChars: input.maxArgumentChars ?? 2_000,
        recentMessages: horizon ? 0 : limits.keepMessages,
        ...(input.reductions ? { cache: input.reductions } : {}),
      }),
    microcompact: (items) =>
      microcompact(items, {
        tokenizer,
        lastActivityAt,
        now: input.now,
        idleGapMs: profile.idleGapMs ?? PROFILE_DEFAULTS.idleGapMs,
        keep: microcompactKeep,
      }),
  });
  const stageRun = stagesFor(false);
  const horizonRun = stagesFor(true);

  let items: ProjectionItem[];
  let tokens: number;
  let saved: StageSavings;
  const stages: StageReport[] = [];
  let stable: { memo: ProjectionMemo; rewrite: RewriteReport } | null = null;
  let extension: { items: ProjectionItem[]; tokens: number } | null = null;
  /** Pressure after every reduction due (stable mode): what decides LLM compaction. */
  let fullyReduced = Number.POSITIVE_INFINITY;
  /** A rewrite needed to fit would buy too little room: LLM compaction comes now (chooseRewrite). */
  let compactionInstead = false;
  if (input.memo === undefined) {
    items = raw.items;
    tokens = rawTokens;
    saved = { collapse: 0, truncate: 0, microcompact: 0 };
    let savedSoFar = 0;
    for (const name of ["collapse", "truncate", "microcompact"] as const) {
      if (tokens <= limits.triggerTokens) {
        stages.push(notRun(name, tokens));
        continue;
      }
      const result = stageRun[name](items);
      items = result.items;
      savedSoFar += result.saved;
      saved[name] = result.saved;
      const after = measure(items, savedSoFar);
      stages.push({
        name,
        tokensBefore: tokens,
        tokensAfter: after,
        removed: result.removed || "nothing to remove",
      });
      tokens = after;
    }
  } else {
    const result = stableProjection({
      raw: raw.items,
      memo: input.memo,
      compactionId: compaction?.id ?? null,
      limits,
      rewriteMinTokens: input.rewriteMinTokens,
      measure,
      stageRun,
      horizonRun,
      clearRun: (items) => clearOlderResults(items, { tokenizer, keep: microcompactKeep, why: "rewrite" }),
    });
    ({ items, tokens, saved, fullyReduced, compactionInstead, extension } = result);
    stages.push(...result.stages);
    stable = { memo: result.memo, rewrite: result.rewrite };
  }

  // Encrypted reasoning is bound to the exact prefix it was issued after: once a stage rewrote a
  // message, every later assistant message leaves its original chain and must not replay it. Anthropic's
  // signed thinking is bound to its own text only, and stays (its in-flight tool loop needs it).
  const firstChanged = items.findIndex((item, index) => item !== raw.items[index]);
  if (firstChanged >= 0) {
    items = items.map((item, index) =>
      index >= firstChanged && hasProviderState(item.message) && !carriesSignedThinkingOnly(item.message)
        ? { ...item, message: sanitizeMessage(item.message) }
        : item,
    );
  }
  const all = [...header, ...items];
  const needInput: NeedInput = {
    must:
      compactionInstead ||
      (tokens > limits.triggerTokens && (stable === null || fullyReduced > limits.triggerTokens)),
    profile,
    tokenizer,
    limits,
    header,
    raw: raw.items,
    toolsTokens,
    tokens,
    resentTokens: stable?.rewrite.rewritten ? stable.rewrite.resentTokens : 0,
    extensionTokens: extension?.tokens ?? tokens,
    compacted: compaction !== null,
  };
  const decision = decideCompaction(needInput);
  const lineTokens = compactionLineTokens(needInput);
  const needsCompaction = decision !== null;
  const messages = all.map((item) => item.message);
  const sourceIds = all.map((item) => item.sourceId ?? null);
  // Without a cache-stable extension the request it continues is this projection itself.
  const continued = extension === null ? null : [...header, ...extension.items];
  const ran = stages.filter((stage) => !stage.removed.startsWith("not run")).map((stage) => stage.name);
  const reason = projectionReason({
    tokens,
    limits,
    ran,
    needsCompaction,
    rewriteReason: stable?.rewrite.reason,
    compactionInstead,
    decision,
    lineTokens,
  });
  return {
    messages,
    marks: all.map((item) => item.mark),
    sourceIds,
    messageTokens: all.map((item) => item.tokens),
    tokens,
    rawTokens,
    triggerTokens: limits.triggerTokens,
    compactionLineTokens: lineTokens,
    limitTokens: limits.limitTokens,
    saved,
    stages,
    needsCompaction,
    reason,
    compactionNeed: decision,
    continuation: {
      messages: continued === null ? messages : continued.map((item) => item.message),
      sourceIds: continued === null ? sourceIds : continued.map((item) => item.sourceId ?? null),
      tokens: extension?.tokens ?? tokens,
    },
    boundary: raw.boundary,
    repair: raw.repair,
    toolsTokens,
    ...(stable ? stable : {}),
  };
}
