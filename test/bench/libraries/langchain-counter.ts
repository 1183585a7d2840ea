import type { BaseMessage } from "@langchain/core/messages";
import type { ChatMessage } from "@longrun/protocol";
import { messageTokens } from "../tokens.ts";
import { fromLangChain, toLangChain } from "./langchain-convert.ts";

/**
 * How the libraries' token counter works:
 * - "cached": counts precomputed once per transcript and looked up by message id — the same
 *   advantage longrun's stored tokenCount gives, so the timing compares the algorithms;
 * - "per-call": no persistent cache, each call tokenizes every message it sees once (memoized
 *   by object within the call) — how a library is used when nothing stores counts.
 */
export type CountMode = "cached" | "per-call";

type Counter = (messages: BaseMessage[]) => number;

/** A transcript converted to LangChain once, and a token counter factory for each call. */
export interface LangChainFile {
  messages: BaseMessage[];
  /** The counter one library call uses. */
  counterForCall(): Counter;
}

/**
 * A counter memoized by object (per call in "per-call" mode). Messages with a transcript id are
 * counted from their original ChatMessage, so both modes agree with the bench's ruler exactly.
 */
function memoizedCounter(
  originals: ReadonlyMap<string, ChatMessage>,
  known: ReadonlyMap<string, number> | null,
): Counter {
  const seen = new WeakMap<BaseMessage, number>();
  return (list) => {
    let total = 0;
    for (const message of list) {
      let tokens = known !== null && message.id !== undefined ? known.get(message.id) : seen.get(message);
      if (tokens === undefined) {
        const original = message.id === undefined ? undefined : originals.get(message.id);
        // Messages a library builds itself (e.g. "[cleared]" results) have no id.
        tokens = messageTokens(original ?? fromLangChain(message));
        seen.set(message, tokens);
      }
      total += tokens;
    }
    return total;
  };
}

/** Convert once (ids are transcript indexes, which LangChain keeps on its copies); counts per mode. */
export function prepareLangChain(messages: readonly ChatMessage[], mode: CountMode): LangChainFile {
  const converted = messages.map((message, index) => toLangChain(message, `m${index}`));
  const originals = new Map(messages.map((message, index) => [`m${index}`, message]));
  if (mode === "per-call") {
    return { messages: converted, counterForCall: () => memoizedCounter(originals, null) };
  }
  const known = new Map<string, number>();
  for (const [id, message] of originals) known.set(id, messageTokens(message));
  const cached = memoizedCounter(originals, known);
  return { messages: converted, counterForCall: () => cached };
}
