import { Worker } from "node:worker_threads";
import { estimateStoredTokens, piecesAreShort, type Tokenizer } from "@longrun/compaction";
import type { NewMessage } from "@longrun/protocol";

/** Counts a message's tokens; large ones on a worker thread. */
export interface MessageCounter {
  count(message: NewMessage): Promise<number>;
  /** The tokenizer's count of a text (a client's system text, a tool's JSON), large ones off-thread. */
  countText(text: string): Promise<number>;
  close(): Promise<void>;
}

/** Characters of text above which a message is counted off the event loop (below: ~1 ms here). */
export const OFF_THREAD_CHARS = 16_000;

/**
 * Whether a text is counted off the event loop: a long one, or one with a long piece (a stretch without
 * spaces: counted exactly in linear time, but at ~12 µs a character — 16,000 of them held the loop for
 * ~200 ms, where ordinary text of that length takes ~1 ms).
 */
export function countsOffThread(text: string): boolean {
  return text.length > OFF_THREAD_CHARS || !piecesAreShort(text);
}

/**
 * The texts of a message long enough to be counted off-thread: the worker sends their counts back and
 * the tokenizer here keeps them, so a projection that sends the message again (a pinned user message
 * after a compaction) finds its count instead of counting it on the loop.
 */
export function longTextsOf(message: NewMessage): string[] {
  const texts: string[] = [];
  const add = (text: string) => {
    if (countsOffThread(text)) texts.push(text);
  };
  if (typeof message.content === "string") add(message.content);
  else if (Array.isArray(message.content))
    for (const part of message.content) if (part.type === "text") add(part.text);
  for (const call of message.toolCalls ?? []) add(call.function.arguments);
  return texts;
}

function textLength(message: NewMessage): number {
  let chars = 0;
  if (typeof message.content === "string") chars += message.content.length;
  else if (Array.isArray(message.content))
    for (const part of message.content) if (part.type === "text") chars += part.text.length;
  for (const call of message.toolCalls ?? []) chars += call.function.arguments.length;
  return chars;
}

/**
 * Counts small messages inline and large ones on one worker thread (started on first use): a 200,000-
 * character message without whitespace takes about a second to count here, which must never stall
 * the API or the other agents' steps. The count is the same either way (same tokenizer).
 */
export function createMessageCounter(tokenizer: Tokenizer): MessageCounter {
  let worker: Worker | null = null;
  let nextId = 1;
  const waiting = new Map<number, { resolve(tokens: number): void; reject(error: Error): void }>();
  // The long texts of each request in flight, in the order the worker counts them back.
  const asked = new Map<number, string[]>();
  const start = (): Worker => {
    if (worker) return worker;
    // Runs the TypeScript source through tsx, like every longrun process (see count-worker.mjs).
    const started = new Worker(new URL("./count-worker.mjs", import.meta.url), {
      execArgv: ["--conditions=@longrun/source"],
    });
    started.unref();
    started.on("message", (answer: { id: number; tokens?: number; texts?: number[]; error?: string }) => {
      const pending = waiting.get(answer.id);
      if (!pending) return;
      waiting.delete(answer.id);
      if (answer.error !== undefined) return pending.reject(new Error(answer.error));
      asked.get(answer.id)?.forEach((text, index) => {
        const tokens = answer.texts?.[index];
        if (tokens !== undefined) tokenizer.remember?.(text, tokens);
      });
      pending.resolve(answer.tokens ?? 0);
    });
    const fail = (error: Error) => {
      for (const pending of waiting.values()) pending.reject(error);
      waiting.clear();
      worker = null;
    };
    started.on("error", fail);
    started.on("exit", (code) => {
      if (code !== 0) fail(new Error(`token counter exited with code ${code}`));
      else worker = null;
    });
    worker = started;
    return started;
  };
  const ask = (request: { message: NewMessage } | { text: string }): Promise<number> => {
    const target = start();
    const id = nextId++;
    asked.set(id, "text" in request ? [request.text] : longTextsOf(request.message));
    return new Promise<number>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      target.ref();
      target.postMessage({ id, ...request });
    }).finally(() => {
      asked.delete(id);
      if (waiting.size === 0) target.unref();
    });
  };
  return {
    async count(message) {
      if (textLength(message) <= OFF_THREAD_CHARS && longTextsOf(message).length === 0)
        return estimateStoredTokens(message, tokenizer);
      return ask({ message });
    },
    async countText(text) {
      if (!countsOffThread(text)) return tokenizer.count(text);
      return ask({ text });
    },
    async close() {
      const current = worker;
      worker = null;
      if (current) await current.terminate();
    },
  };
}
