import type { PromptCacheFigures } from "@longrun/openai-compat";
import type { ModelProfile, Usage } from "@longrun/protocol";

/** The share of the client's window that reported prompt tokens never pass. */
const REPORTED_SHARE = 0.5;

/**
 * The factor that maps longrun's prompt sizes onto a smaller client window. longrun keeps its
 * projection within its own window; reported as it is, that size is over a smaller client's
 * compaction threshold after every answer, and the client compacts every turn (issue 34 measured
 * 321 client compactions in 652 requests). Scaled so that longrun's whole window reads as half the
 * client's, every answer — longrun's answer to the client's compaction included — looks small
 * enough to the client, and sizes still grow and shrink as the real ones do.
 */
function scaleOf(profile: ModelProfile): number {
  const clientWindow = profile.gateway?.clientWindow;
  if (!clientWindow) return 1;
  const window = profile.maxInputTokens ?? profile.fallbackTriggerTokens;
  return Math.min(1, (clientWindow * REPORTED_SHARE) / window);
}

/** Usage as a client with its own smaller window is told it (unchanged without one). */
export function usageForClient(usage: Usage | undefined, profile: ModelProfile): Usage | undefined {
  const scale = scaleOf(profile);
  if (!usage || scale === 1) return usage;
  const cap = Math.floor((profile.gateway?.clientWindow ?? 0) * REPORTED_SHARE);
  const promptTokens = Math.min(cap, Math.round(usage.promptTokens * scale));
  return {
    ...usage,
    promptTokens,
    totalTokens: promptTokens + usage.completionTokens,
    ...(usage.cachedTokens !== undefined
      ? { cachedTokens: Math.min(promptTokens, Math.round(usage.cachedTokens * scale)) }
      : {}),
  };
}

/** Cache figures in the same scale as the prompt tokens reported with them. */
export function cacheFiguresForClient(
  figures: PromptCacheFigures | undefined,
  profile: ModelProfile,
): PromptCacheFigures | undefined {
  const scale = scaleOf(profile);
  if (!figures || scale === 1) return figures;
  return {
    readTokens: Math.round(figures.readTokens * scale),
    writeTokens: Math.round(figures.writeTokens * scale),
  };
}

/**
 * The client window learned from a compaction request: the client asked when the size it was last
 * told reached its threshold, so that size is at most its window. A window learned earlier (or
 * declared) only ever shrinks, so a client that still compacts teaches a smaller one.
 */
export function learnedClientWindow(reported: Usage | undefined, profile: ModelProfile): number | undefined {
  const size = reported ? reported.promptTokens + reported.completionTokens : 0;
  const known = profile.gateway?.clientWindow;
  if (size <= 0) return known;
  return known ? Math.min(known, size) : size;
}
