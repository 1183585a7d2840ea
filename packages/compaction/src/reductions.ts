import type { ChatMessage } from "@longrun/protocol";
import type { ToolKind } from "./classify.ts";
import { estimateMessageTokens, type Tokenizer } from "./tokenizer.ts";

/**
 * Per-fact results of the deterministic stages, computed once and reused by later calls: the kind of
 * each tool call, truncated arguments, a result's line in a collapse record, collapse records by
 * the span of facts they replace, and the token counts of the messages the stages build. Facts never change, so every entry stays true; the cache only
 * memoizes pure functions (a projection with it equals one without). One per agent, passed in like
 * the memo; it forgets everything when the compaction in force changes (older facts never return).
 */
export class ReductionCache {
  readonly kinds = new Map<string, ToolKind>();
  readonly args = new Map<string, string>();
  readonly lines = new Map<string, string>();
  readonly tokens = new Map<string, number>();
  /** Collapse records by the span of facts they replace. */
  readonly records = new Map<string, { message: ChatMessage; tokens: number }>();
  #epoch: string | null | undefined = undefined;

  /** Starts afresh under another compaction. */
  enter(compactionId: string | null): void {
    if (this.#epoch === compactionId) return;
    this.#epoch = compactionId;
    this.kinds.clear();
    this.args.clear();
    this.lines.clear();
    this.tokens.clear();
    this.records.clear();
  }

  /** Tokens of a message the stages built, keyed by what determines it. */
  messageTokens(key: string, message: ChatMessage, tokenizer: Tokenizer): number {
    return memoized(this.tokens, key, () => estimateMessageTokens(message, tokenizer));
  }
}

/** `compute()` memoized under `key` in `map`. */
export function memoized<T>(map: Map<string, T>, key: string, compute: () => T): T {
  const known = map.get(key);
  if (known !== undefined) return known;
  const value = compute();
  map.set(key, value);
  return value;
}
