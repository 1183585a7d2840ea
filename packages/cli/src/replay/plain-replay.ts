import {
  type CallPointCost,
  type PlainCompaction,
  plainBaseline,
  type RequestPartCounter,
  type Tokenizer,
  type ToolSpec,
} from "@longrun/compaction";
import type { Transcript } from "./transcript.ts";

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

/** Walks the transcript with the plain strategy (the baseline) and prices every call it sends. */
export function replayPlain(input: PlainReplayInput): {
  points: CallPointCost[];
  compactions: PlainCompaction[];
} {
  const { transcript, ...rest } = input;
  return plainBaseline({
    ...rest,
    systemPrompt: transcript.systemPrompt,
    messages: transcript.messages,
    firstIndex: transcript.firstFactIndex,
  });
}
