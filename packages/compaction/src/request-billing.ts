import type { CallCost, ChatMessage, Usage } from "@longrun/protocol";

/** Pricing profiles: how a provider bills input against its prefix cache. */
export type BillingProfile = "openai" | "anthropic";

/** Prices per token, as a multiple of one uncached input token. */
export interface BillingRates {
  /** A token read from the prefix cache. */
  cacheRead: number;
  /** A token written to the cache; null: the provider charges no write, the rest is plain input (1.0). */
  cacheWrite: number | null;
}

/** Cached input at a tenth; Anthropic charges 1.25 for each token it writes to the cache, OpenAI nothing extra. */
export const BILLING_PROFILES: Readonly<Record<BillingProfile, BillingRates>> = {
  openai: { cacheRead: 0.1, cacheWrite: null },
  anthropic: { cacheRead: 0.1, cacheWrite: 1.25 },
};

/** Output tokens cost this many input tokens unless told otherwise. */
export const DEFAULT_OUTPUT_RATIO = 4;

/** One request sent to a provider, as token counts per prefix part. */
export interface BillableRequest {
  /**
   * Tokens of each part in the order a prefix cache sees them: the header (system prompt and tool
   * definitions) first, then one entry per message.
   */
  partTokens: readonly number[];
  /** Leading parts byte-identical to the previous request on the same thread (see sharedPrefixParts). */
  sharedParts: number;
  /** Tokens the call produced. */
  outputTokens: number;
}

/** What one request costs under one profile (token counts, and the billed sum in input-token units). */
export interface RequestBill {
  /** Input tokens served by the prefix cache. */
  cacheRead: number;
  /** Input tokens written to the cache (profiles that charge writes). */
  cacheWrite: number;
  /** Input tokens billed as plain input (profiles without a write charge). */
  uncached: number;
  output: number;
  /** cacheRead × read price + rest × write (or plain) price + output × outputRatio. */
  billed: number;
}

/**
 * How many leading parts two requests share byte for byte. Parts are serialized: the header (system
 * prompt and tools) first, then the messages; a request whose header differs shares nothing.
 */
export function sharedPrefixParts(previous: readonly string[] | null, current: readonly string[]): number {
  if (previous === null) return 0;
  const limit = Math.min(previous.length, current.length);
  let shared = 0;
  while (shared < limit && previous[shared] === current[shared]) shared++;
  return shared;
}

/** Prices one request under every profile: its shared prefix is read from cache, the rest is written. */
export function billRequest(
  request: BillableRequest,
  outputRatio: number = DEFAULT_OUTPUT_RATIO,
): Record<BillingProfile, RequestBill> {
  let cached = 0;
  let rest = 0;
  request.partTokens.forEach((tokens, index) => {
    if (index < request.sharedParts) cached += tokens;
    else rest += tokens;
  });
  const bill = (rates: BillingRates): RequestBill => ({
    cacheRead: cached,
    cacheWrite: rates.cacheWrite === null ? 0 : rest,
    uncached: rates.cacheWrite === null ? rest : 0,
    output: request.outputTokens,
    billed: cached * rates.cacheRead + rest * (rates.cacheWrite ?? 1) + request.outputTokens * outputRatio,
  });
  return { openai: bill(BILLING_PROFILES.openai), anthropic: bill(BILLING_PROFILES.anthropic) };
}

/** A request as a prefix cache sees it: serialized parts (header, then each message) and their tokens. */
export interface RequestParts {
  parts: string[];
  partTokens: number[];
}

/**
 * The parts of a projected request: the header (tool definitions and a leading system message) as
 * one part, then each message. `messageTokens` are the projection's per-message estimates.
 */
export function requestPartsOf(
  messages: readonly ChatMessage[],
  messageTokens: readonly number[],
  tools: unknown,
  toolsTokens: number,
): RequestParts {
  const system = messages[0]?.role === "system" ? 1 : 0;
  const parts = [JSON.stringify([tools, messages.slice(0, system)])];
  const partTokens = [toolsTokens + (system ? (messageTokens[0] ?? 0) : 0)];
  for (let index = system; index < messages.length; index++) {
    parts.push(JSON.stringify(messages[index]));
    partTokens.push(messageTokens[index] ?? 0);
  }
  return { parts, partTokens };
}

/**
 * What one model call cost. With the provider's usage that reports cached tokens, its own figures;
 * otherwise `estimate` (called only then: serializing a request is work a reporting provider spares):
 * the request's part tokens, the leading `sharedParts` read from cache and the rest written; output
 * from the usage when there is one.
 */
export function callCost(
  usage: Usage | undefined,
  estimate: () => { partTokens: readonly number[]; sharedParts: number },
  outputRatio: number = DEFAULT_OUTPUT_RATIO,
): CallCost {
  const priced = (cacheRead: number, uncached: number, output: number, source: CallCost["source"]) => {
    const bill = billRequest(
      { partTokens: [cacheRead, uncached], sharedParts: 1, outputTokens: output },
      outputRatio,
    );
    return {
      cacheRead,
      uncached,
      output,
      billed: { openai: round(bill.openai.billed), anthropic: round(bill.anthropic.billed) },
      source,
    };
  };
  if (usage?.cachedTokens !== undefined) {
    const cacheRead = Math.min(usage.cachedTokens, usage.promptTokens);
    return priced(cacheRead, usage.promptTokens - cacheRead, usage.completionTokens, "provider");
  }
  const { partTokens, sharedParts } = estimate();
  let cacheRead = 0;
  let uncached = 0;
  partTokens.forEach((tokens, index) => {
    if (index < sharedParts) cacheRead += tokens;
    else uncached += tokens;
  });
  return priced(cacheRead, uncached, usage?.completionTokens ?? 0, "estimate");
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
