import {
  estimateMessageTokens,
  estimateStoredTokens,
  estimateToolsTokens,
  type Tokenizer,
} from "@longrun/compaction";
import type { ClientTurn } from "@longrun/openai-compat";
import { countsOffThread, type MessageCounter, OFF_THREAD_CHARS } from "../tokens/message-counter.ts";

/**
 * Input tokens of a client request as it stands (system text, every item, tools), counted the way
 * longrun counts what it sends upstream. Answers Anthropic's `count_tokens`. With a counter, long
 * texts are counted off the event loop (a 3 MiB body counted inline held the server for 100s of ms).
 */
export async function countClientTurnTokens(
  turn: Pick<ClientTurn, "system" | "items" | "tools">,
  tokenizer: Tokenizer,
  counter?: MessageCounter,
): Promise<number> {
  let total = 0;
  for (const tool of turn.tools ?? []) {
    const json = JSON.stringify(tool.function);
    total +=
      counter && json.length > OFF_THREAD_CHARS
        ? 8 + (await counter.countText(json))
        : estimateToolsTokens([tool], tokenizer);
  }
  if (turn.system) {
    total +=
      counter && countsOffThread(turn.system)
        ? estimateMessageTokens({ role: "system", content: "" }, tokenizer) +
          (await counter.countText(turn.system))
        : estimateMessageTokens({ role: "system", content: turn.system }, tokenizer);
  }
  for (const item of turn.items)
    total += counter ? await counter.count(item) : estimateStoredTokens(item, tokenizer);
  return total;
}
