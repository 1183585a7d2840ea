import type { ChatMessage } from "@longrun/protocol";
import { BillingChain, type PricedCall, type RequestPartCounter } from "./billing-chain.ts";
import { PlainStrategy } from "./plain-strategy.ts";
import type { Tokenizer, ToolSpec } from "./tokenizer.ts";

/** What one strategy sent at one call point (main absent: no request was sent). */
export interface CallPointCost {
  index: number;
  main?: PricedCall;
  summary?: PricedCall;
  compaction?: { tokensBefore: number; tokensAfter: number };
}

/** A compaction of the plain strategy, at the call point of the assistant message `index`. */
export interface PlainCompaction {
  index: number;
  tokensBefore: number;
  tokensAfter: number;
  summarizedMessages: number;
  /** Oldest messages its summary call left out to fit the window. */
  summaryDropped: number;
}

/** Input of plainBaseline: one agent's conversation and what every request of it carries. */
export interface PlainBaselineInput {
  systemPrompt: string | null;
  /** The agent's messages in order, as the log holds them; the conversation starts at `firstIndex`. */
  messages: readonly ChatMessage[];
  /** Index of the first message of the conversation (1 after a leading system message, else 0). */
  firstIndex: number;
  tools: readonly ToolSpec[];
  tokenizer: Tokenizer;
  counter: RequestPartCounter;
  windowTokens: number;
  /** A request over this is not sent (the limit longrun's own requests are held to). */
  limitTokens: number;
  outputRatio: number;
}

/** A message as sent: wire fields only (no reasoning), like longrun's requests. */
function wireMessage(message: ChatMessage): ChatMessage {
  const wire: ChatMessage = { role: message.role, content: message.content };
  if (message.name !== undefined) wire.name = message.name;
  if (message.tool_calls && message.tool_calls.length > 0) wire.tool_calls = message.tool_calls;
  if (message.tool_call_id !== undefined) wire.tool_call_id = message.tool_call_id;
  return wire;
}

/**
 * What the plain way most agent CLIs compact would have cost on the same conversation — append-only,
 * one summary call that extends the cached conversation when a request passes 75 % of the window —
 * with every request (its summary calls included) priced by the prefix it shares with the one sent
 * before it. The agent's own answers are recorded, not billed: they are the same whatever compacts.
 */
export function plainBaseline(input: PlainBaselineInput): {
  points: CallPointCost[];
  compactions: PlainCompaction[];
} {
  const { tools, counter } = input;
  const system: ChatMessage[] =
    input.systemPrompt === null ? [] : [{ role: "system", content: input.systemPrompt }];
  const plain = new PlainStrategy({
    windowTokens: input.windowTokens,
    headerTokens: counter.partsOf(system, tools).partTokens[0] ?? 0,
    tokenizer: input.tokenizer,
  });
  const chain = new BillingChain(input.outputRatio);
  const points: CallPointCost[] = [];
  const compactions: PlainCompaction[] = [];
  let next = input.firstIndex;
  input.messages.forEach((answer, index) => {
    if (answer.role !== "assistant" || index < input.firstIndex) return;
    const step = plain.callPoint(input.messages.slice(next, index).map(wireMessage));
    next = index;
    const point: CallPointCost = { index };
    if (step.summary) {
      const { request, outputTokens } = step.summary;
      point.summary = chain.send(
        counter.partsOf([...system, ...request.messages], tools, request.messageTokens),
        outputTokens,
      );
    }
    if (step.compaction) {
      const { tokensBefore, tokensAfter, summarizedMessages } = step.compaction;
      point.compaction = { tokensBefore, tokensAfter };
      compactions.push({
        index,
        tokensBefore,
        tokensAfter,
        summarizedMessages,
        summaryDropped: step.summary?.dropped ?? 0,
      });
    }
    if (step.request.tokens <= input.limitTokens) {
      point.main = chain.send(
        counter.partsOf([...system, ...step.request.messages], tools, step.request.messageTokens),
        counter.outputTokens(answer),
        false,
      );
    }
    points.push(point);
  });
  return { points, compactions };
}
