import {
  estimateMessageTokens,
  estimateStoredTokens,
  estimateToolsTokens,
  type Tokenizer,
} from "@longrun/compaction";
import type { ClientTurn } from "@longrun/openai-compat";

/**
 * Input tokens of a client request as it stands (system text, every item, tools), counted the way
 * longrun counts what it sends upstream. Answers Anthropic's `count_tokens`.
 */
export function countClientTurnTokens(
  turn: Pick<ClientTurn, "system" | "items" | "tools">,
  tokenizer: Tokenizer,
): number {
  let total = estimateToolsTokens(turn.tools, tokenizer);
  if (turn.system) total += estimateMessageTokens({ role: "system", content: turn.system }, tokenizer);
  for (const item of turn.items) total += estimateStoredTokens(item, tokenizer);
  return total;
}
