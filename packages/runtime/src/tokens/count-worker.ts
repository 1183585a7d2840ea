// A worker thread that counts the tokens of large messages, so counting never holds the event loop
// of the process that serves the API or runs steps. One message at a time, in order.
import { parentPort } from "node:worker_threads";
import { createTokenizer, estimateStoredTokens } from "@longrun/compaction";
import type { NewMessage } from "@longrun/protocol";

const tokenizer = createTokenizer("o200k_base");

parentPort?.on("message", (request: { id: number; message: NewMessage }) => {
  try {
    parentPort?.postMessage({ id: request.id, tokens: estimateStoredTokens(request.message, tokenizer) });
  } catch (error) {
    parentPort?.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
