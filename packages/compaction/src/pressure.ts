import type { ProviderState, Usage } from "@longrun/protocol";
import type { Tokenizer } from "./tokenizer.ts";

/** Pad on a pure estimate (no usage anchor): BPE counts of our own framing may run short. */
export const ESTIMATE_PAD = 1.1;

/** A provider usage report tied to a position in the list being measured. */
export interface UsageAnchor {
  /** Index of the assistant message that carried the usage. */
  index: number;
  usage: Usage;
  /** Hidden reasoning tokens to subtract when usage.reasoningTokens is missing. */
  estimatedReasoningTokens?: number;
}

/** Input of measurePressure. */
export interface PressureInput {
  /** Per-message token estimates of the list, in order. */
  messageTokens: readonly number[];
  anchor: UsageAnchor | null;
  /** Tokens outside the messages (tool definitions). */
  extraTokens?: number;
}

/** How full the next request is. */
export interface Pressure {
  /** The number decisions use: max(anchor, estimate) with usage; padded estimate without. */
  tokens: number;
  /** Plain sum of estimates (+ extra). */
  estimated: number;
  /** Usage-anchored count, or null without a usable anchor. */
  anchored: number | null;
}

/** Reasoning tokens visible in provider state (text and summaries; encrypted blobs by size). */
export function estimateReasoningTokens(state: ProviderState | undefined, tokenizer: Tokenizer): number {
  if (!state) return 0;
  let tokens = state.reasoningContent ? tokenizer.count(state.reasoningContent) : 0;
  for (const detail of state.reasoningDetails ?? []) {
    if (detail.type === "reasoning.text") tokens += tokenizer.count(detail.text);
    else if (detail.type === "reasoning.summary") tokens += tokenizer.count(detail.summary);
    else tokens += Math.ceil(detail.data.length / 4);
  }
  return tokens;
}

/**
 * Hybrid token pressure (DESIGN §6): anchor = prompt + completion − hidden reasoning of the
 * latest usage report, plus estimates of the messages after it; never below the full
 * estimate. Without an anchor: the estimate times ESTIMATE_PAD.
 */
export function measurePressure(input: PressureInput): Pressure {
  const extra = input.extraTokens ?? 0;
  let estimated = extra;
  for (const tokens of input.messageTokens) estimated += tokens;
  const anchor = input.anchor;
  if (anchor === null || anchor.index < 0 || anchor.index >= input.messageTokens.length) {
    return { tokens: Math.ceil(estimated * ESTIMATE_PAD), estimated, anchored: null };
  }
  const usage = anchor.usage;
  const reasoning = Math.min(
    usage.completionTokens,
    usage.reasoningTokens ?? anchor.estimatedReasoningTokens ?? 0,
  );
  let anchored = usage.promptTokens + usage.completionTokens - reasoning;
  for (let index = anchor.index + 1; index < input.messageTokens.length; index++) {
    anchored += input.messageTokens[index] ?? 0;
  }
  return { tokens: Math.max(anchored, estimated), estimated, anchored };
}
