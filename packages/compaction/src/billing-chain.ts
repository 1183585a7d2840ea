import type { ChatMessage } from "@longrun/protocol";
import { type BillingProfile, billRequest, type RequestParts, sharedPrefixParts } from "./request-billing.ts";
import { estimateMessageTokens, estimateToolsTokens, type Tokenizer, type ToolSpec } from "./tokenizer.ts";

/**
 * What one call cost: tokens read from cache, the rest, the output, and the billed sum per profile
 * (the output is in it only when the call bills it: see BillingChain.send).
 */
export type PricedCall = { cacheRead: number; rest: number; output: number } & Record<BillingProfile, number>;

const MEMO_LIMIT = 50_000;

/**
 * Serializes a request into the parts a prefix cache compares — the header (system prompt and tool
 * definitions as one part), then each message — and counts each part with the replay's tokenizer.
 * Requests repeat most of the previous one, so each distinct part is counted once.
 */
export class RequestPartCounter {
  private readonly memo = new Map<string, number>();

  constructor(private readonly tokenizer: Tokenizer) {}

  /**
   * Parts of a request whose leading system message (if any) is its system prompt. `messageTokens`:
   * counts of the messages after it when the caller already has them (else they are counted here).
   */
  partsOf(
    messages: readonly ChatMessage[],
    tools: readonly ToolSpec[],
    messageTokens?: readonly number[],
  ): RequestParts {
    const system = messages[0]?.role === "system" ? messages[0] : null;
    const header = JSON.stringify({ system, tools });
    const parts = [header];
    const partTokens = [
      this.count(
        header,
        () =>
          (system === null ? 0 : estimateMessageTokens(system, this.tokenizer)) +
          estimateToolsTokens(tools, this.tokenizer),
      ),
    ];
    (system === null ? messages : messages.slice(1)).forEach((message, index) => {
      const part = JSON.stringify(message);
      parts.push(part);
      const known = messageTokens?.[index];
      partTokens.push(known ?? this.count(part, () => estimateMessageTokens(message, this.tokenizer)));
    });
    return { parts, partTokens };
  }

  /** Tokens of one message the model produces (reasoning included: it is billed as output). */
  outputTokens(message: ChatMessage): number {
    return estimateMessageTokens(message, this.tokenizer);
  }

  private count(part: string, measure: () => number): number {
    let tokens = this.memo.get(part);
    if (tokens === undefined) {
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      tokens = measure();
      this.memo.set(part, tokens);
    }
    return tokens;
  }
}

/**
 * The requests of one thread in the order they are sent (summary calls included): each is priced
 * by the prefix it shares with the one sent before it.
 */
export class BillingChain {
  private previous: string[] | null = null;

  constructor(private readonly outputRatio: number) {}

  /**
   * Prices one request by the prefix it shares with the one before. `billOutput` false: the output is
   * recorded but left out of the billed sum — an agent's own answers are the same whatever compacts
   * the context, so the comparison is of billed-equivalent input (plus the summaries' output).
   */
  send(request: RequestParts, outputTokens: number, billOutput = true): PricedCall {
    const sharedParts = sharedPrefixParts(this.previous, request.parts);
    this.previous = request.parts;
    const bill = billRequest(
      { partTokens: request.partTokens, sharedParts, outputTokens: billOutput ? outputTokens : 0 },
      this.outputRatio,
    );
    return {
      cacheRead: bill.openai.cacheRead,
      rest: bill.openai.uncached,
      output: outputTokens,
      openai: bill.openai.billed,
      anthropic: bill.anthropic.billed,
    };
  }
}
