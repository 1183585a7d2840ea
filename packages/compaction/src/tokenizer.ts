import type { ChatMessage, NewMessage, TokenizerFamily } from "@longrun/protocol";
import { countBpe } from "./bpe-count.ts";

/** Counts tokens of plain text with one BPE vocabulary. */
export interface Tokenizer {
  readonly family: TokenizerFamily;
  count(text: string): number;
  /** Takes a count of `text` made elsewhere (by the same vocabulary, on another thread). */
  remember?(text: string, tokens: number): void;
}

/** A tool definition as sent in `tools`; counted toward the request size. */
export interface ToolSpec {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

const MEMO_MAX_ENTRIES = 4_096;
const MEMO_MAX_CHARS = 32_768;
/** Longer texts are kept apart, by total length: a few pinned or recent long messages at most. */
const LONG_MEMO_MAX_TOTAL_CHARS = 4_000_000;

/**
 * A BPE tokenizer for a family. gpt-tokenizer measured ~8x faster than js-tiktoken on the
 * corpus (test/bench/libraries/tokenizers.ts), so it is the one used; long unbroken runs are counted in
 * stitched windows (bpe-count.ts), so the cost stays linear in the text's length.
 */
export function createTokenizer(family: TokenizerFamily = "o200k_base"): Tokenizer {
  // Prompts, markers and re-projected messages repeat across calls: a small memo pays off.
  const memo = new Map<string, number>();
  // A long message is counted on every projection that sends it (a pinned user message is counted
  // anew by each call point a compaction walks): 35 s of one 200,000-character message's step went
  // into recounting it. Counting is linear, so one count per long text is what it should cost.
  const longMemo = new Map<string, number>();
  let longMemoChars = 0;
  const keep = (text: string, tokens: number) => {
    if (text.length <= MEMO_MAX_CHARS) {
      if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
      memo.set(text, tokens);
      return;
    }
    if (text.length > LONG_MEMO_MAX_TOTAL_CHARS || longMemo.has(text)) return;
    // Oldest first out, until the new text fits the budget.
    for (const [old] of longMemo) {
      if (longMemoChars + text.length <= LONG_MEMO_MAX_TOTAL_CHARS) break;
      longMemo.delete(old);
      longMemoChars -= old.length;
    }
    longMemo.set(text, tokens);
    longMemoChars += text.length;
  };
  return {
    family,
    count: (text) => {
      if (text.length === 0) return 0;
      const known = (text.length <= MEMO_MAX_CHARS ? memo : longMemo).get(text);
      if (known !== undefined) return known;
      const tokens = countBpe(family, text);
      keep(text, tokens);
      return tokens;
    },
    remember: keep,
  };
}

/** Chat framing per message (role tokens, separators), as OpenAI's cookbook counts it. */
export const MESSAGE_OVERHEAD = 4;
/** Per tool call framing beyond its JSON. */
export const TOOL_CALL_OVERHEAD = 3;
const IMAGE_LOW_TOKENS = 85;
const IMAGE_HIGH_TOKENS = 765;

/** Tokens of one Chat Completions message: text + tool-call JSON + images + overhead. */
export function estimateMessageTokens(message: ChatMessage, tokenizer: Tokenizer): number {
  let tokens = MESSAGE_OVERHEAD;
  const content = message.content;
  if (typeof content === "string") tokens += tokenizer.count(content);
  else if (content !== null) {
    for (const part of content) {
      if (part.type === "text") tokens += tokenizer.count(part.text);
      else tokens += part.image_url.detail === "low" ? IMAGE_LOW_TOKENS : IMAGE_HIGH_TOKENS;
    }
  }
  if (message.name) tokens += tokenizer.count(message.name) + 1;
  if (message.tool_call_id) tokens += tokenizer.count(message.tool_call_id) + 1;
  for (const call of message.tool_calls ?? []) {
    tokens += TOOL_CALL_OVERHEAD;
    tokens += tokenizer.count(call.id) + tokenizer.count(call.function.name);
    tokens += tokenizer.count(call.function.arguments);
  }
  if (message.reasoning_content) tokens += tokenizer.count(message.reasoning_content);
  for (const detail of message.reasoning_details ?? []) tokens += reasoningDetailTokens(detail, tokenizer);
  return tokens;
}

function reasoningDetailTokens(
  detail: NonNullable<ChatMessage["reasoning_details"]>[number],
  tokenizer: Tokenizer,
): number {
  if (detail.type === "reasoning.text") return tokenizer.count(detail.text);
  if (detail.type === "reasoning.summary") return tokenizer.count(detail.summary);
  // Encrypted blobs are base64: roughly 4 characters a token, not worth a BPE pass.
  return Math.ceil(detail.data.length / 4);
}

/** Sum of message estimates of a list. */
export function estimateTokens(messages: readonly ChatMessage[], tokenizer: Tokenizer): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message, tokenizer);
  return total;
}

/** Tokens of the `tools` definitions sent with a request. */
export function estimateToolsTokens(tools: readonly ToolSpec[] | undefined, tokenizer: Tokenizer): number {
  if (!tools || tools.length === 0) return 0;
  return tools.reduce((sum, tool) => sum + 8 + tokenizer.count(JSON.stringify(tool.function)), 0);
}

/**
 * The stored `token_count` of a new fact: its wire form without provider state (what every
 * projection after a compaction sends). Compute once, on append.
 */
export function estimateStoredTokens(message: NewMessage, tokenizer: Tokenizer): number {
  const wire: ChatMessage = { role: message.role, content: message.content };
  if (message.name !== undefined) wire.name = message.name;
  if (message.toolCalls && message.toolCalls.length > 0) wire.tool_calls = message.toolCalls;
  if (message.toolCallId !== undefined) wire.tool_call_id = message.toolCallId;
  return estimateMessageTokens(wire, tokenizer);
}
