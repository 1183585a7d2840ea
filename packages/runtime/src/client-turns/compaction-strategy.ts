import { ledgerBudgetTokens, type Projection, summaryBudgetTokens, thresholds } from "@longrun/compaction";
import type { CompactionStrategy, ModelProfile } from "@longrun/protocol";

/**
 * How a gateway conversation is compacted. Partial (the older prefix summarized, a recent tail kept
 * verbatim) unless the client's fixed prompt — its system text and tool definitions, sent on every
 * request — leaves no room for the kept tail: then the tail is summarized too, as a segment. qwen-code's
 * fixed prompt is ~85 % of a 20k window; a partial compaction kept 10 % of it verbatim beside the
 * summary and the ledger, and the next request was over the limit. The compaction job cannot see the
 * client's tools, so the turn (which measured them) decides.
 */
export function gatewayCompactionStrategy(
  projection: Pick<Projection, "messages" | "messageTokens" | "toolsTokens">,
  profile: Partial<ModelProfile>,
): CompactionStrategy {
  const limits = thresholds(profile);
  if (limits.keepTokens === null) return "partial";
  const systemTokens = projection.messages[0]?.role === "system" ? (projection.messageTokens[0] ?? 0) : 0;
  const fixed = systemTokens + projection.toolsTokens;
  const afterPartial = fixed + limits.keepTokens + ledgerBudgetTokens(profile) + summaryBudgetTokens(profile);
  return afterPartial >= limits.triggerTokens ? "full" : "partial";
}
