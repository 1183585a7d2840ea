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
  /** The stage that reduced it (microcompact: cleared at a rewrite); null: sent as assembled. */
  stage: "collapse" | "truncate" | "microcompact" | null;
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
   * active loop); false when it took only what was due (the wider form measured more, a later start
   * cost less, or no rewrite).
   */
  horizon: boolean;
  /** Tokens the rewrite saved against the request as the cache last saw it (0: no rewrite). */
  savedTokens: number;
  /** Tokens of the request after its first rewritten message: what the cache loses (0: no rewrite). */
  resentTokens: number;
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
): { segments: MemoSegment[]; intact: boolean; served: number } {
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
  const intact = !usable || reused === memo.segments.length;
  // A history that changed under a sent message breaks the cached prefix there.
  return { segments, intact, served: intact ? segments.length : reused };
}

/**
 * The items a stage may reduce: those sent as assembled from `from` on; reduced forms and everything
 * before `from` are locked (they keep the form the cache saw).
 */
export function openFrom(segments: readonly MemoSegment[], from: number): ProjectionItem[] {
  return segments.map((segment, index) =>
    segment.stage === null && index >= from ? segment.item : { ...segment.item, locked: true },
  );
}

/**
 * Runs one stage over the segments with every reduced form locked (it keeps its form), and maps
 * the stage's output back to segments: a new collapse record stands for the segments it replaced,
 * an item rewritten in place for the one it replaced. Segments before `keepBefore` keep their form
 * too (a rewrite that starts later resends less).
 */
export function applyStage(
  segments: readonly MemoSegment[],
  name: "collapse" | "truncate",
  run: (items: readonly ProjectionItem[]) => StageResult,
  keepBefore = 0,
): { segments: MemoSegment[]; result: StageResult } {
  const input = openFrom(segments, keepBefore);
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

/**
 * Clears older tool results from a rewrite's first change on, as after an idle gap: a prefix cache
 * cannot serve that part of the request either way. Segments before `from` and reduced forms keep
 * their form; `clear` decides which results stay (the most recent ones, see clearOlderResults).
 */
export function clearFrom(
  segments: readonly MemoSegment[],
  from: number,
  clear: (items: readonly ProjectionItem[]) => StageResult,
): { segments: MemoSegment[]; result: StageResult } {
  const input = openFrom(segments, from);
  const result = clear(input);
  const out = segments.map((segment, index): MemoSegment => {
    const item = result.items[index] as ProjectionItem;
    if (item === input[index]) return segment;
    return { item, covers: segment.covers, stage: "microcompact", saved: segment.item.tokens - item.tokens };
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
 * Default `rewriteMinTokens`: three fifths of the trigger (7,200 tokens at a 16k window, 28,800 at
 * 64k), and at least the room between the trigger and the limit. A batch taken before the request
 * must fit starts at the oldest reduction due and resends nearly everything after it, while a
 * rewrite to fit may start later (see cheapestStart), so an early batch pays only when it frees most
 * of the window. On the corpus at 16k, with rewrites to fit starting late: 2,400 → 8 of 12 files at
 * the 0.98 cache ratio (worst 0.902), 4,800 and 6,000 → 9 (worst 0.902), 7,200 → 9 (worst 0.969),
 * 9,000 or never → 9 (worst 0.969, one file lower); compactions 75 in every case. 64k: 12 of 12.
 * With clearing counted toward compaction and dear rewrites to fit replaced (FIT_RESEND_PER_ROOM):
 * 4,800 and 6,000 → 11 of 12 (worst 0.902, 74 compactions), 7,200 and 9,000 → 11 (worst 0.969, 72).
 */
export function defaultRewriteMinTokens(limits: { triggerTokens: number; limitTokens: number }): number {
  return Math.max(1, limits.limitTokens - limits.triggerTokens, Math.floor((limits.triggerTokens * 3) / 5));
}

/**
 * Least room under the trigger a rewrite to fit must leave, else LLM compaction comes instead: half
 * the room between trigger and limit, and at least a tenth of the trigger (1,200 tokens at a 16k
 * window, 5,952 at 64k). A rewrite resends the tail after its first change; one that buys only a step
 * or two before compaction costs more cache than it saves. On the corpus at 16k this halves the
 * rewrites right before a compaction and keeps the compactions per file as they were (600: fewer
 * compactions, more rewrites; 1,800: more compactions).
 */
export function defaultRewriteMinRoom(limits: { triggerTokens: number; limitTokens: number }): number {
  return Math.max(
    1,
    Math.floor((limits.limitTokens - limits.triggerTokens) / 2),
    Math.floor(limits.triggerTokens / 10),
  );
}

/**
 * Index of the first segment of `next` that differs from `sent` (its length when none does), and at
 * most `served`: the segments of `sent` the previous request sent as they are (see stableSegments).
 */
export function firstRewritten(
  sent: readonly MemoSegment[],
  next: readonly MemoSegment[],
  served = sent.length,
): number {
  let at = 0;
  while (at < next.length && at < sent.length && next[at]?.item === sent[at]?.item) at++;
  return Math.min(at, served);
}

/** Tokens of `next` from its first segment that differs from `sent`: what a prefix cache cannot serve. */
export function resentTokens(
  sent: readonly MemoSegment[],
  next: readonly MemoSegment[],
  served = sent.length,
): number {
  return next
    .slice(firstRewritten(sent, next, served))
    .reduce((sum, segment) => sum + segment.item.tokens, 0);
}
