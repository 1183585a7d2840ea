import type { ModelProfile } from "@longrun/protocol";
import { PROFILE_DEFAULTS } from "@longrun/protocol";

/** Token budgets derived from a model profile (DESIGN §5 defaults). */
export interface Thresholds {
  /** Above this, deterministic stages run, then LLM compaction is needed. */
  triggerTokens: number;
  /** A request above this is never sent (window minus output reserve). */
  limitTokens: number;
  /** Recent context kept verbatim by a partial compaction (null: use keepMessages). */
  keepTokens: number | null;
  /** Recent messages kept verbatim when the window is unknown. */
  keepMessages: number;
}

const DEFAULT_OUTPUT_RESERVE = 4_096;

/**
 * Without a window, the fallback trigger is taken to be this share of it: the limit is the trigger
 * scaled back up by it (133k for the 100k fallback), whatever trigger ratio a window would get.
 */
const UNKNOWN_WINDOW_RATIO = 0.75;

/**
 * With maxInputTokens: trigger at triggerRatio (66 %) and keep keepRatio (5 %) of it; the limit
 * is the window minus an output reserve (maxOutputTokens, at most 20 % of the window).
 * Without: trigger at fallbackTriggerTokens (100k), keep fallbackKeepMessages (6), and the
 * limit is the trigger scaled back up by UNKNOWN_WINDOW_RATIO (133k for the defaults).
 */
export function thresholds(profile: Partial<ModelProfile>): Thresholds {
  const triggerRatio = profile.triggerRatio ?? PROFILE_DEFAULTS.triggerRatio;
  const keepRatio = profile.keepRatio ?? PROFILE_DEFAULTS.keepRatio;
  const keepMessages = profile.fallbackKeepMessages ?? PROFILE_DEFAULTS.fallbackKeepMessages;
  const window = profile.maxInputTokens;
  if (window === undefined) {
    const triggerTokens = profile.fallbackTriggerTokens ?? PROFILE_DEFAULTS.fallbackTriggerTokens;
    return {
      triggerTokens,
      limitTokens: Math.round(triggerTokens / UNKNOWN_WINDOW_RATIO),
      keepTokens: null,
      keepMessages,
    };
  }
  const triggerTokens = Math.floor(window * triggerRatio);
  const reserve = Math.min(profile.maxOutputTokens ?? DEFAULT_OUTPUT_RESERVE, Math.floor(window * 0.2));
  return {
    triggerTokens,
    limitTokens: Math.max(triggerTokens, window - reserve),
    keepTokens: Math.max(1, Math.floor(window * keepRatio)),
    keepMessages,
  };
}
