import { type MemoSegment, type RewriteReport, resentTokens } from "./stable.ts";

/** What the stable projection knows when reductions are due over the trigger. */
export interface RewriteSituation {
  /** Pressure of the request as the cache last saw it (sent forms kept, new items as assembled). */
  tokens: number;
  /** Pressure after every reduction due. */
  reducedTokens: number;
  /** Tokens the due reductions save. */
  dueTokens: number;
  /** The reduction had to start afresh from the raw items to get under the trigger. */
  afresh: boolean;
  /** The messages already sent are still the prefix of what is assembled now. */
  intact: boolean;
  triggerTokens: number;
  limitTokens: number;
  /** Least tokens a batched rewrite must save (rewriteMinTokens). */
  minTokens: number;
  /** Least room under the trigger a rewrite to fit must leave, else LLM compaction comes instead. */
  minRoomTokens: number;
}

/** The decision: whether to rewrite, why, and whether LLM compaction should come instead. */
export interface RewriteChoice extends RewriteReport {
  /**
   * A rewrite needed to fit would leave less than `minRoomTokens` under the trigger: it would
   * resend the tail after its first change to buy a step or two before LLM compaction comes
   * anyway, so compaction is asked for now (the rewrite stands when compaction cannot run).
   */
  compactionInstead: boolean;
}

/**
 * The report of a call that rewrites nothing it sent: the request extends the previous one, unless the
 * assembled history itself changed under a sent message (`intact` false).
 */
export function keptAsSent(intact: boolean, dueTokens: number): RewriteReport {
  return {
    rewritten: false,
    cause: intact ? null : "history",
    reason: intact ? "" : "the assembled history changed under a message already sent",
    dueTokens,
    horizon: false,
    savedTokens: 0,
    resentTokens: 0,
  };
}

/**
 * Chooses what happens to the reductions due (cache stability, issue 17): a request that fits keeps
 * every message already sent unless the batch saves at least `minTokens`; one that would not fit
 * rewrites, or asks for LLM compaction when the rewrite would buy too little room before it.
 */
export function chooseRewrite(situation: RewriteSituation): RewriteChoice {
  const { tokens, reducedTokens, dueTokens, triggerTokens, limitTokens, minTokens, minRoomTokens } =
    situation;
  const choice: RewriteChoice = { ...keptAsSent(situation.intact, dueTokens), compactionInstead: false };
  const decide = (cause: RewriteReport["cause"], reason: string): RewriteChoice => ({
    ...choice,
    rewritten: true,
    cause,
    reason,
  });
  if (dueTokens === 0) return situation.intact ? { ...choice, reason: "nothing due" } : choice;
  if (reducedTokens > triggerTokens) {
    // LLM compaction is needed anyway; if it cannot run, the fullest reduction is the best try.
    return decide(
      "compaction",
      `over the trigger after every reduction (${reducedTokens} > ${triggerTokens})`,
    );
  }
  if (tokens > limitTokens) {
    const room = triggerTokens - reducedTokens;
    const fit = decide("fit", `needed to fit (${tokens} > limit ${limitTokens})`);
    if (room >= minRoomTokens) return fit;
    return {
      ...fit,
      reason: `${fit.reason}; LLM compaction instead: the rewrite leaves ${room} < ${minRoomTokens} tokens under the trigger`,
      compactionInstead: true,
    };
  }
  if (situation.afresh) {
    return decide("fit", "needed to fit under the trigger without LLM compaction: reduced afresh");
  }
  if (dueTokens >= minTokens) return decide("batch", `batch saves ${dueTokens} >= ${minTokens} tokens`);
  if (!situation.intact) return choice;
  return {
    ...choice,
    reason: `deferred: batch saves ${dueTokens} < ${minTokens} tokens and the request fits`,
  };
}

/**
 * Most tokens a rewrite to fit may resend per token of room it leaves under the trigger; a dearer one
 * is replaced by LLM compaction. A compaction resends its whole (small) request too, but buys most of
 * the window: on the corpus it leaves 4.7k of a 12k trigger at a 16k window (0.65 resent per token of
 * room) and 10.5k of 48k at 64k (0.28). A rewrite that resends more than 1.5 tokens per token of room
 * buys a step or two at more than twice that price, and compaction comes soon after it anyway.
 * Measured on the corpus (with clearing counted toward the compaction decision): 1 → 77 compactions
 * at 16k, 1.5 → 72, 2 → 70, never → 65 but more rewrites (5 of 12 files at the 0.98 cache ratio,
 * 11 with 1.5).
 */
export const FIT_RESEND_PER_ROOM = 1.5;

/**
 * Why a rewrite to fit costs more cache than LLM compaction would (see FIT_RESEND_PER_ROOM), or null
 * when it is worth it. `room`: what the rewritten request leaves under the trigger.
 */
export function dearRewrite(resentTokens: number, room: number): string | null {
  if (resentTokens <= FIT_RESEND_PER_ROOM * Math.max(0, room)) return null;
  return `the rewrite resends ${resentTokens} tokens to leave ${room} under the trigger (more than ${FIT_RESEND_PER_ROOM} per token)`;
}

/** A form a rewrite could send: the segments and the pressure they measure. */
export interface RewriteCandidate {
  segments: MemoSegment[];
  tokens: number;
}

/**
 * The start of a rewrite that resends the fewest tokens per token it saves (cache stability, issue
 * 17). `full` reduces from the oldest reduction due; `reduce(k)` leaves the first k segments as they
 * were sent. Starts are tried from the oldest on, at each assistant message (a call group starts
 * there), until one saves nothing or no longer `fits` (a later start saves less); `full` wins ties.
 */
export function cheapestStart<C extends RewriteCandidate>(
  sent: readonly MemoSegment[],
  full: C,
  options: {
    reduce: (keepBefore: number) => C;
    fits: (candidate: C, saved: number) => boolean;
    /** Segments of `sent` the cache still serves (see stableSegments). */
    served?: number;
  },
): C {
  const total = sent.reduce((sum, segment) => sum + segment.item.tokens, 0);
  const savedBy = (candidate: C) =>
    total - candidate.segments.reduce((sum, segment) => sum + segment.item.tokens, 0);
  const costOf = (candidate: C) =>
    resentTokens(sent, candidate.segments, options.served) / Math.max(1, savedBy(candidate));
  let chosen = full;
  let cost = costOf(full);
  for (let start = 1; start < sent.length; start++) {
    if (sent[start]?.item.message.role !== "assistant") continue;
    const candidate = options.reduce(start);
    const saved = savedBy(candidate);
    if (saved <= 0 || !options.fits(candidate, saved)) break;
    const candidateCost = costOf(candidate);
    if (candidateCost < cost) {
      chosen = candidate;
      cost = candidateCost;
    }
  }
  return chosen;
}
