import { estimateMessageTokens, type Tokenizer } from "@longrun/compaction";
import type { ChatMessage } from "@longrun/protocol";

/** What clearing older reasoning removed from an upstream request. */
export interface ClearedReasoning {
  turns: number;
  tokens: number;
}

function carriesReasoning(message: ChatMessage): boolean {
  return (message.reasoning_details?.length ?? 0) > 0 || !!message.reasoning_content;
}

/**
 * Anthropic's `clear_thinking_20251015` context edit, emulated on the upstream request: the reasoning
 * of all but the last `keep` assistant turns that carry any is left out (the facts keep it).
 */
export function clearOlderReasoning(
  messages: readonly ChatMessage[],
  keep: number,
  tokenizer: Tokenizer,
): { messages: ChatMessage[]; cleared: ClearedReasoning } {
  const withReasoning = messages.flatMap((message, index) => (carriesReasoning(message) ? [index] : []));
  const clear = new Set(withReasoning.slice(0, Math.max(0, withReasoning.length - keep)));
  let tokens = 0;
  const out = messages.map((message, index) => {
    if (!clear.has(index)) return message;
    const { reasoning_details: _details, reasoning_content: _content, ...rest } = message;
    tokens += estimateMessageTokens(message, tokenizer) - estimateMessageTokens(rest, tokenizer);
    return rest;
  });
  return { messages: out, cleared: { turns: clear.size, tokens } };
}
