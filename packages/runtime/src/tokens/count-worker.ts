// A worker thread that counts the tokens of large messages and texts, so counting never holds the event loop
// of the process that serves the API or runs steps. One message at a time, in order.
import { parentPort } from "node:worker_threads";
import { createTokenizer, estimateStoredTokens } from "@longrun/compaction";
import type { NewMessage } from "@longrun/protocol";

const tokenizer = createTokenizer("o200k_base");

parentPort?.on("message", (request: { id: number; message?: NewMessage; text?: string }) => {
  try {
    const tokens =
      request.message !== undefined
        ? estimateStoredTokens(request.message, tokenizer)
        : tokenizer.count(request.text ?? "");
    parentPort?.postMessage({ id: request.id, tokens });
  } catch (error) {
    parentPort?.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
