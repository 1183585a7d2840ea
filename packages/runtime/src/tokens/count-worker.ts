// A worker thread that counts the tokens of large messages and texts, so counting never holds the event loop
// of the process that serves the API or runs steps. One message at a time, in order.
import { parentPort } from "node:worker_threads";
import { createTokenizer, estimateStoredTokens } from "@longrun/compaction";
import type { NewMessage } from "@longrun/protocol";
import { longTextsOf } from "./message-counter.ts";

const tokenizer = createTokenizer("o200k_base");

parentPort?.on("message", (request: { id: number; message?: NewMessage; text?: string }) => {
  try {
    const tokens =
      request.message !== undefined
        ? estimateStoredTokens(request.message, tokenizer)
        : tokenizer.count(request.text ?? "");
    // The counts of the long texts, for the asking thread's tokenizer (already counted: memo hits).
    const long = request.message !== undefined ? longTextsOf(request.message) : [request.text ?? ""];
    const texts = long.map((text) => tokenizer.count(text));
    parentPort?.postMessage({ id: request.id, tokens, texts });
  } catch (error) {
    parentPort?.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
