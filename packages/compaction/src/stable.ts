import type { StageSavings } from "@longrun/protocol";
import type { ProjectionItem, StageResult } from "./types.ts";

/**
 * One message of the raw part as it was last sent: as assembled, or in the form a stage reduced it
 * to. A reduced form keeps that form until the next compaction (cache stability, DESIGN §5).
 */
export interface MemoSegment {
  item: ProjectionItem;
  /** Raw items it stands for: 1, or the trace groups a collapse record replaced. */
  covers: number;
  /** The stage that reduced it; null: sent as assembled. */
  stage: "collapse" | "truncate" | null;
  /** Tokens the reduction saved against the raw items it stands for. */
  saved: number;
}

/**
 * What the previous projection sent, passed back into the next one (a value: the package keeps no
 * state). It is a function of the facts and the compaction in force: rebuildMemo() folds the call
 * points since the compaction and reaches the same value as carrying it step by step.
 */
export interface ProjectionMemo {
  /** The compaction in force when it was made (null: none); under another one it starts afresh. */
  compactionId: string | null;
  /** Keys of the raw items the segments cover, in order (fact id, or the repaired call's id). */
  keys: readonly string[];
  segments: readonly MemoSegment[];
}

/** What the stable projection did with the reductions due at this call. */
export interface RewriteReport {
  /** A batched rewrite of messages already sent happened at this call. */
  rewritten: boolean;
  /**
   * What changed messages already sent, null for nothing (the request extends the previous one):
   * `batch` saved at least rewriteMinTokens; `fit` the request would not fit otherwise; `compaction`
   * even the fullest reduction is over the trigger; `history` the assembled history itself changed
   * under a sent message (a late result replaced its cancelled stand-in, or a message must go
   * verbatim again).
   */
  cause: "batch" | "fit" | "compaction" | "history" | null;
  /** Why it happened, or why the reductions wait ("" when nothing was due). */
  reason: string;
  /** Tokens the due reductions save (applied when rewritten, else deferred). */
  dueTokens: number;
  /**
   * The rewrite also took what would come due soon (whole read/search runs, arguments up to the
   * active loop); false when it took only what was due (the wider form measured more, or no rewrite).
   */
  horizon: boolean;
}

/** The identity of a raw item across calls. */
export function rawKey(item: ProjectionItem): string {
  return item.sourceId ?? `repaired:${item.message.tool_call_id ?? ""}`;
}

export function asAssembled(item: ProjectionItem): MemoSegment {
  return { item, covers: 1, stage: null, saved: 0 };
}

/**
 * The raw part as the cache last saw it: the memo's segments while its keys match the items
 * assembled now, then the new items as assembled. A reduced form that would stand for an item that
 * must now reach the model verbatim (locked) ends the reuse there.
 */
export function stableSegments(
  raw: readonly ProjectionItem[],
  memo: ProjectionMemo | null,
  compactionId: string | null,
): { segments: MemoSegment[]; intact: boolean } {
  const segments: MemoSegment[] = [];
  let covered = 0;
  let reused = 0;
  const usable = memo !== null && memo.compactionId === compactionId;
  if (usable) {
    let common = 0;
    while (
      common < memo.keys.length &&
      common < raw.length &&
      memo.keys[common] === rawKey(raw[common] as ProjectionItem)
    )
      common++;
    for (const segment of memo.segments) {
      const end = covered + segment.covers;
      if (end > common) break;
      if (segment.stage === null) {
        segments.push(asAssembled(raw[covered] as ProjectionItem));
      } else {
        if (raw.slice(covered, end).some((item) => item.locked)) break;
        segments.push(segment);
      }
      covered = end;
      reused++;
    }
  }
  for (let index = covered; index < raw.length; index++)
    segments.push(asAssembled(raw[index] as ProjectionItem));
  return { segments, intact: !usable || reused === memo.segments.length };
}

/**
 * Runs one stage over the segments with every reduced form locked (it keeps its form), and maps
 * the stage's output back to segments: a new collapse record stands for the segments it replaced,
 * an item rewritten in place for the one it replaced.
 */
export function applyStage(
  segments: readonly MemoSegment[],
  name: "collapse" | "truncate",
  run: (items: readonly ProjectionItem[]) => StageResult,
): { segments: MemoSegment[]; result: StageResult } {
  const input = segments.map((segment) =>
    segment.stage === null ? segment.item : { ...segment.item, locked: true },
  );
  const result = run(input);
  const position = new Map(input.map((item, index) => [item, index]));
  const out: MemoSegment[] = [];
  let next = 0;
  result.items.forEach((item, index) => {
    const at = position.get(item);
    if (at !== undefined) {
      out.push(segments[at] as MemoSegment);
      next = at + 1;
      return;
    }
    if (name === "collapse") {
      const following = result.items[index + 1];
      const end = following === undefined ? segments.length : (position.get(following) ?? segments.length);
      const replaced = segments.slice(next, end);
      const covers = replaced.reduce((sum, segment) => sum + segment.covers, 0);
      const before = replaced.reduce((sum, segment) => sum + segment.item.tokens + segment.saved, 0);
      out.push({ item, covers, stage: "collapse", saved: before - item.tokens });
      next = end;
      return;
    }
    const replaced = segments[next] as MemoSegment;
    out.push({
      item,
      covers: replaced.covers,
      stage: name,
      saved: replaced.saved + replaced.item.tokens - item.tokens,
    });
    next += 1;
  });
  return { segments: out, result };
}

/** Savings per stage of the reduced forms in a list of segments (against the raw items). */
export function savingsOf(segments: readonly MemoSegment[]): StageSavings {
  const saved: StageSavings = { collapse: 0, truncate: 0, microcompact: 0 };
  for (const segment of segments) if (segment.stage !== null) saved[segment.stage] += segment.saved;
  return saved;
}

/** The memo a projection hands to the next call. */
export function memoOf(
  raw: readonly ProjectionItem[],
  segments: readonly MemoSegment[],
  compactionId: string | null,
): ProjectionMemo {
  return { compactionId, keys: raw.map(rawKey), segments };
}

/**
 * Default `rewriteMinTokens`: the room between the trigger and the limit, and at least a fifth of the
 * trigger (2,400 tokens at a 16k window, 11,904 at 64k). A request may run over the trigger into that
 * room without a rewrite, so a batch is applied before it is needed only when it saves a large part
 * of the window; smaller batches wait until the request would not fit, and take what came due since.
 * On the corpus this sends the fewest uncached tokens at 16k and 64k (see the helpers' reports).
 */
export function defaultRewriteMinTokens(limits: { triggerTokens: number; limitTokens: number }): number {
  return Math.max(1, limits.limitTokens - limits.triggerTokens, Math.floor(limits.triggerTokens / 5));
}

/**
 * Least room under the trigger a rewrite to fit must leave, else LLM compaction comes instead: half
 * the default batch threshold (1,200 tokens at a 16k window, 5,952 at 64k). A rewrite resends the
 * tail after its first change; one that buys only a step or two before compaction costs more cache
 * than it saves. On the corpus at 16k this halves the rewrites right before a compaction and keeps
 * the compactions per file as they were (a quarter of the threshold: fewer compactions, more
 * rewrites; three quarters: more compactions).
 */
export function defaultRewriteMinRoom(limits: { triggerTokens: number; limitTokens: number }): number {
  return Math.floor(defaultRewriteMinTokens(limits) / 2);
}
