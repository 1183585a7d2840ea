import type { ChatMessage } from "@longrun/protocol";

/**
 * Splits a fork prefix into its leading system messages and the rest. The system prompt is the
 * agent's instructions, not conversation: folding a prefix into a summary never takes it along.
 */
export function splitPrefixSystem(prefix: readonly ChatMessage[]): {
  system: ChatMessage[];
  rest: ChatMessage[];
} {
  let end = 0;
  while (end < prefix.length && prefix[end]?.role === "system") end++;
  return { system: prefix.slice(0, end), rest: prefix.slice(end) };
}
