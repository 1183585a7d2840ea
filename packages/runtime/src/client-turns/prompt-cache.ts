import { createHash } from "node:crypto";
import {
  estimateMessageTokens,
  estimateToolsTokens,
  sharedPrefixParts,
  type Tokenizer,
} from "@longrun/compaction";
import type { ClientTurn, PromptCacheFigures } from "@longrun/openai-compat";
import type { ChatMessage } from "@longrun/protocol";

/**
 * The cache-relevant shape of one upstream request: a hash chain over its entries (the tools first,
 * then each message) with the estimated tokens up to each entry, and how many entries it cached.
 */
interface PromptPrefix {
  chain: string[];
  tokens: number[];
  cached: number;
}

function prefixOf(
  messages: readonly ChatMessage[],
  tools: ClientTurn["tools"],
  tokenizer: Tokenizer,
): PromptPrefix {
  const chain: string[] = [];
  const tokens: number[] = [];
  let hash = createHash("sha256").update(JSON.stringify(tools)).digest("hex");
  let running = estimateToolsTokens(tools, tokenizer);
  chain.push(hash);
  tokens.push(running);
  for (const message of messages) {
    hash = createHash("sha256").update(hash).update(JSON.stringify(message)).digest("hex");
    running += estimateMessageTokens(message, tokenizer);
    chain.push(hash);
    tokens.push(running);
  }
  // The breakpoint sits on the stable prefix: everything but the last message, which the next
  // projection may rewrite (a read trace collapses once it is no longer the latest).
  return { chain, tokens, cached: Math.max(1, chain.length - 1) };
}

/**
 * What each conversation's last upstream request left in the prompt cache, per agent (bounded; the
 * oldest conversations are forgotten first). A request reads the prefix it shares with what the
 * previous one cached, and writes the rest of its own stable prefix.
 */
export class PromptCacheLedger {
  private readonly last = new Map<string, PromptPrefix>();

  constructor(private readonly limit = 2_000) {}

  /** Records a request sent upstream and returns its cache figures, scaled to `promptTokens`. */
  record(
    agentId: string,
    request: { messages: readonly ChatMessage[]; tools: ClientTurn["tools"] },
    tokenizer: Tokenizer,
    promptTokens: number,
  ): PromptCacheFigures {
    const current = prefixOf(request.messages, request.tools, tokenizer);
    const previous = this.last.get(agentId);
    // Only what the previous request cached can be read: its chain up to its breakpoint.
    const shared = sharedPrefixParts(
      previous ? previous.chain.slice(0, previous.cached) : null,
      current.chain,
    );
    this.last.delete(agentId);
    this.last.set(agentId, current);
    for (const key of this.last.keys()) {
      if (this.last.size <= this.limit) break;
      this.last.delete(key);
    }
    const total = current.tokens.at(-1) ?? 0;
    const scale = total > 0 ? promptTokens / total : 0;
    const read = shared > 0 ? current.tokens[shared - 1]! : 0;
    const stable = current.tokens[current.cached - 1] ?? 0;
    const readTokens = Math.min(promptTokens, Math.round(read * scale));
    const writeTokens = Math.min(promptTokens - readTokens, Math.round(Math.max(0, stable - read) * scale));
    return { readTokens, writeTokens };
  }
}
