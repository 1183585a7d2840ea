import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ChatMessage, StoredMessage } from "@longrun/protocol";
import { estimateStoredTokens, type Tokenizer } from "./tokenizer.ts";

const configured = process.env.LONGRUN_CORPUS_DIR?.trim();

/**
 * The real-transcript corpus (opt-in): LONGRUN_CORPUS_DIR, or null when unset. The transcripts are
 * other people's data and never live in this repository; `.ci/run` points the variable at them.
 */
export const CORPUS_DIR: string | null = configured ? resolve(configured) : null;

/** The line a skipped corpus test file prints. */
export const CORPUS_SKIP_NOTICE =
  "skipped the real-transcript tests: set LONGRUN_CORPUS_DIR to a folder of *.jsonl transcripts to run them (.ci/run sets it)";

/** Names of the corpus files starting with a prefix ("cc-", "mini-"); none when the corpus is off. */
export function corpusFiles(prefix = ""): string[] {
  if (!CORPUS_DIR) return [];
  return readdirSync(CORPUS_DIR)
    .filter((name) => name.endsWith(".jsonl") && name.startsWith(prefix))
    .sort();
}

/** One corpus file as wire messages. */
export function readCorpus(name: string): ChatMessage[] {
  if (!CORPUS_DIR) throw new Error(CORPUS_SKIP_NOTICE);
  return readFileSync(join(CORPUS_DIR, name), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ChatMessage);
}

/** Corpus messages as stored facts (ids m0001…, seq from 0, one minute apart, token counts set). */
export function corpusFacts(
  name: string,
  tokenizer: Tokenizer,
  startAt = 1_700_000_000_000,
): StoredMessage[] {
  return readCorpus(name).map((message, seq) => {
    const fact: StoredMessage = {
      id: `m${String(seq).padStart(5, "0")}`,
      agentId: "agent",
      seq,
      role: message.role,
      content: message.content,
      tokenCount: 0,
      createdAt: startAt + seq * 60_000,
    };
    if (message.name !== undefined) fact.name = message.name;
    if (message.tool_calls) fact.toolCalls = message.tool_calls;
    if (message.tool_call_id !== undefined) fact.toolCallId = message.tool_call_id;
    if (message.role === "tool") fact.toolStatus = "ok";
    fact.tokenCount = estimateStoredTokens(fact, tokenizer);
    return fact;
  });
}
