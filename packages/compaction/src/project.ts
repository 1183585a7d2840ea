import type {
  ChatMessage,
  CompactionEvent,
  ModelProfile,
  StageSavings,
  StoredMessage,
} from "@longrun/protocol";
import { PROFILE_DEFAULTS } from "@longrun/protocol";
import { type AssembledRaw, assembleHeader, assembleRaw, type RepairReport } from "./assemble.ts";
import type { Boundary } from "./boundary.ts";
import type { ToolClassification } from "./classify.ts";
import { collapseTraces } from "./collapse.ts";
import { microcompact } from "./microcompact.ts";
import { estimateReasoningTokens, measurePressure, type UsageAnchor } from "./pressure.ts";
import type { RestorableState, RestorationBudgets, RestoredFile } from "./restoration.ts";
import { hasProviderState, sanitizeMessage } from "./sanitize.ts";
import { thresholds } from "./thresholds.ts";
import { estimateToolsTokens, type Tokenizer, type ToolSpec } from "./tokenizer.ts";
import { truncateArguments } from "./truncate.ts";
import type { ProjectionItem, ProjectionMark, StageResult } from "./types.ts";

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
}

/** One deterministic stage's account. */
export interface StageReport {
  name: "collapse" | "truncate" | "microcompact";
  tokensBefore: number;
  tokensAfter: number;
  removed: string;
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
  limitTokens: number;
  saved: StageSavings;
  stages: StageReport[];
  needsCompaction: boolean;
  reason: string;
  boundary: Boundary;
  repair: RepairReport;
  /** Tokens of tool definitions included in `tokens`. */
  toolsTokens: number;
}

function usageAnchor(
  items: readonly ProjectionItem[],
  raw: AssembledRaw,
  compaction: CompactionEvent | null,
  tokenizer: Tokenizer,
): UsageAnchor | null {
  const factsById = new Map(raw.facts.map((fact) => [fact.id, fact]));
  for (let index = items.length - 1; index >= 0; index--) {
    const sourceId = items[index]?.sourceId;
    const fact = sourceId === undefined ? undefined : factsById.get(sourceId);
    if (fact?.role !== "assistant" || !fact.usage) continue;
    // Usage measured before the latest compaction describes a context that no longer exists.
    if (compaction !== null && fact.createdAt < compaction.createdAt) return null;
    const anchor: UsageAnchor = { index, usage: fact.usage };
    if (fact.usage.reasoningTokens === undefined) {
      anchor.estimatedReasoningTokens = estimateReasoningTokens(fact.providerState, tokenizer);
    }
    return anchor;
  }
  return null;
}

/**
 * Builds the projection for the next model call: boundary, assembly, repair, sanitizing, then
 * collapse → truncate → microcompact only while over the trigger, each reporting its savings.
 */
export function project(input: ProjectionInput): Projection {
  const { tokenizer, profile, compaction } = input;
  const limits = thresholds(profile);
  const header = assembleHeader(input);
  const raw = assembleRaw(input.messages, compaction, tokenizer);
  const toolsTokens = estimateToolsTokens(input.tools, tokenizer);
  const rawSourceAnchor = usageAnchor(raw.items, raw, compaction, tokenizer);
  const anchorId = rawSourceAnchor === null ? undefined : raw.items[rawSourceAnchor.index]?.sourceId;

  let savedSoFar = 0;
  const measure = (rawItems: readonly ProjectionItem[]): number => {
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
    return Math.max(pressure.anchored - savedSoFar, pressure.estimated);
  };

  const rawTokens = measure(raw.items);
  let items = raw.items;
  let tokens = rawTokens;
  const saved: StageSavings = { collapse: 0, truncate: 0, microcompact: 0 };
  const stages: StageReport[] = [];
  const lastActivityAt =
    input.messages.length > 0 ? (input.messages[input.messages.length - 1] as StoredMessage).createdAt : null;
  const runners: [StageReport["name"], () => StageResult][] = [
    [
      "collapse",
      () =>
        collapseTraces(items, {
          tokenizer,
          ...(input.classification ? { table: input.classification } : {}),
        }),
    ],
    [
      "truncate",
      () =>
        truncateArguments(items, {
          tokenizer,
          maxChars: input.maxArgumentChars ?? 2_000,
          recentMessages: limits.keepMessages,
        }),
    ],
    [
      "microcompact",
      () =>
        microcompact(items, {
          tokenizer,
          lastActivityAt,
          now: input.now,
          idleGapMs: profile.idleGapMs ?? PROFILE_DEFAULTS.idleGapMs,
          keep: profile.microcompactKeep ?? PROFILE_DEFAULTS.microcompactKeep,
        }),
    ],
  ];
  for (const [name, run] of runners) {
    if (tokens <= limits.triggerTokens) {
      stages.push({ name, tokensBefore: tokens, tokensAfter: tokens, removed: "not run: under trigger" });
      continue;
    }
    const result = run();
    items = result.items;
    savedSoFar += result.saved;
    saved[name] = result.saved;
    const after = measure(items);
    stages.push({
      name,
      tokensBefore: tokens,
      tokensAfter: after,
      removed: result.removed || "nothing to remove",
    });
    tokens = after;
  }

  // Encrypted reasoning is bound to the exact prefix it was issued after: once a stage rewrote a
  // message, every later assistant message leaves its original chain and must not replay it.
  const firstChanged = items.findIndex((item, index) => item !== raw.items[index]);
  if (firstChanged >= 0) {
    items = items.map((item, index) =>
      index >= firstChanged && hasProviderState(item.message)
        ? { ...item, message: sanitizeMessage(item.message) }
        : item,
    );
  }
  const all = [...header, ...items];
  const needsCompaction = tokens > limits.triggerTokens;
  const ran = stages.filter((stage) => !stage.removed.startsWith("not run")).map((stage) => stage.name);
  const reason = needsCompaction
    ? `${tokens} tokens > trigger ${limits.triggerTokens} after ${ran.join(", ")}: LLM compaction needed`
    : ran.length === 0
      ? `${tokens} tokens <= trigger ${limits.triggerTokens}`
      : `${tokens} tokens <= trigger ${limits.triggerTokens} after ${ran.join(", ")}`;
  return {
    messages: all.map((item) => item.message),
    marks: all.map((item) => item.mark),
    sourceIds: all.map((item) => item.sourceId ?? null),
    messageTokens: all.map((item) => item.tokens),
    tokens,
    rawTokens,
    triggerTokens: limits.triggerTokens,
    limitTokens: limits.limitTokens,
    saved,
    stages,
    needsCompaction,
    reason,
    boundary: raw.boundary,
    repair: raw.repair,
    toolsTokens,
  };
}
