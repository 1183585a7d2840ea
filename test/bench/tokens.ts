import { type ChatMessage, contentText } from "@longrun/protocol";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

// Special-token text inside transcripts (e.g. "<|endoftext|>") is plain text here.
const plainText = { disallowedSpecial: new Set<string>() };

/** Per-message framing overhead the Chat Completions format adds (role, separators). */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** o200k tokens of a string, special tokens counted as text. */
export function textTokens(text: string): number {
  return text === "" ? 0 : countTokens(text, plainText);
}

/** The bench's ruler for one message: content + tool call names and arguments + overhead. */
export function messageTokens(message: ChatMessage): number {
  let total = MESSAGE_OVERHEAD_TOKENS + textTokens(contentText(message.content));
  for (const call of message.tool_calls ?? []) {
    total += 3 + textTokens(call.function.name) + textTokens(call.function.arguments);
  }
  return total;
}

const byObject = new WeakMap<ChatMessage, number>();
// Library outputs are fresh objects with the same text: also memoize by what the ruler reads.
const byText = new Map<string, number>();

function rulerKey(message: ChatMessage): string {
  const calls = (message.tool_calls ?? []).map(
    (call) => `${call.function.name}\u0001${call.function.arguments}`,
  );
  return `${contentText(message.content)}\u0000${calls.join("\u0002")}`;
}

/** The ruler over a list, memoized (checking outputs must not dominate the bench's run time). */
export function listTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) {
    let tokens = byObject.get(message);
    if (tokens === undefined) {
      const key = rulerKey(message);
      tokens = byText.get(key);
      if (tokens === undefined) {
        tokens = messageTokens(message);
        byText.set(key, tokens);
      }
      byObject.set(message, tokens);
    }
    total += tokens;
  }
  return total;
}
