import type { CompactionEvent } from "@longrun/protocol";
import type { AssembledRaw } from "./assemble.ts";
import { estimateReasoningTokens, type UsageAnchor } from "./pressure.ts";
import type { Tokenizer } from "./tokenizer.ts";
import type { ProjectionItem } from "./types.ts";

/** The latest assistant message of the raw part with provider usage, as the anchor of the pressure. */
export function usageAnchor(
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
