import { Worker } from "node:worker_threads";
import { isCounted, rememberCount } from "./tokens.ts";
import { contentText, type WireRequest } from "./wire.ts";

/** Texts longer than this are counted on the worker thread (shorter ones take about a millisecond). */
export const OFF_THREAD_CHARS = 16_000;

let worker: Worker | null = null;
let nextId = 1;
const waiting = new Map<number, { resolve(tokens: number): void; reject(error: Error): void }>();

function start(): Worker {
  if (worker) return worker;
  const started = new Worker(new URL("./count-worker.mjs", import.meta.url));
  started.unref();
  started.on("message", (answer: { id: number; tokens?: number; error?: string }) => {
    const pending = waiting.get(answer.id);
    if (!pending) return;
    waiting.delete(answer.id);
    if (answer.error !== undefined) pending.reject(new Error(answer.error));
    else pending.resolve(answer.tokens ?? 0);
    if (waiting.size === 0) started.unref();
  });
  const fail = (error: Error) => {
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
    worker = null;
  };
  started.on("error", fail);
  started.on("exit", (code) => fail(new Error(`sim token counter exited with code ${code}`)));
  worker = started;
  return started;
}

function countOffThread(text: string): Promise<number> {
  const target = start();
  const id = nextId++;
  return new Promise<number>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    target.ref();
    target.postMessage({ id, text });
  });
}

/**
 * Counts a request's long texts (message contents, tool call arguments) on a worker thread and keeps
 * the counts in the text cache, so the request's own counting finds them there. In embedded mode the
 * sim shares longrun's event loop: counting a 200,000-character message inline held it for seconds on
 * a busy machine. Counting is exact either way; if the worker cannot run, the request counts inline.
 */
export async function countLongTextsOffThread(request: WireRequest): Promise<void> {
  const texts = new Set<string>();
  for (const message of request.messages) {
    texts.add(contentText(message.content));
    for (const call of message.tool_calls ?? []) texts.add(call.function.arguments);
  }
  const long = [...texts].filter((text) => text.length > OFF_THREAD_CHARS && !isCounted(text));
  try {
    await Promise.all(long.map(async (text) => rememberCount(text, await countOffThread(text))));
  } catch {
    // Counted inline by the caller instead.
  }
}
