import { PlainStrategy, type Tokenizer, type ToolSpec } from "@longrun/compaction";
import type { ChatMessage } from "@longrun/protocol";
import type { CallPointCost } from "./cost-report.ts";
import { BillingChain, type RequestPartCounter } from "./request-cost.ts";
import { callPoints, type Transcript } from "./transcript.ts";

/** A compaction of the plain strategy, at the call point of the assistant message `index`. */
export interface PlainCompaction {
  index: number;
  tokensBefore: number;
  tokensAfter: number;
  summarizedMessages: number;
  /** Oldest messages its summary call left out to fit the window. */
  summaryDropped: number;
}

/** Input of replayPlain: the same transcript, tools, window and tokenizer as longrun's replay. */
export interface PlainReplayInput {
  transcript: Transcript;
  tools: readonly ToolSpec[];
  tokenizer: Tokenizer;
  counter: RequestPartCounter;
  windowTokens: number;
  /** A request over this is not sent (the same limit longrun's requests are held to). */
  limitTokens: number;
  outputRatio: number;
}

/** A transcript message as sent: wire fields only (no reasoning), like longrun's requests. */
function wireMessage(message: ChatMessage): ChatMessage {
  const wire: ChatMessage = { role: message.role, content: message.content };
  if (message.name !== undefined) wire.name = message.name;
  if (message.tool_calls && message.tool_calls.length > 0) wire.tool_calls = message.tool_calls;
  if (message.tool_call_id !== undefined) wire.tool_call_id = message.tool_call_id;
  return wire;
}

/** Walks the transcript with the plain strategy (the baseline) and prices every call it sends. */
export function replayPlain(input: PlainReplayInput): {
  points: CallPointCost[];
  compactions: PlainCompaction[];
} {
  const { transcript, tools, counter } = input;
  const system: ChatMessage[] =
    transcript.systemPrompt === null ? [] : [{ role: "system", content: transcript.systemPrompt }];
  const plain = new PlainStrategy({
    windowTokens: input.windowTokens,
    headerTokens: counter.partsOf(system, tools).partTokens[0] ?? 0,
    tokenizer: input.tokenizer,
  });
  const chain = new BillingChain(input.outputRatio);
  const points: CallPointCost[] = [];
  const compactions: PlainCompaction[] = [];
  let next = transcript.firstFactIndex;
  for (const index of callPoints(transcript)) {
    const step = plain.callPoint(transcript.messages.slice(next, index).map(wireMessage));
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
      const answer = transcript.messages[index] as ChatMessage;
      point.main = chain.send(
        counter.partsOf([...system, ...step.request.messages], tools, step.request.messageTokens),
        counter.outputTokens(answer),
        false,
      );
    }
    points.push(point);
  }
  return { points, compactions };
}
