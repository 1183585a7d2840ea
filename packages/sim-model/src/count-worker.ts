// A worker thread that counts long texts of requests, so that a sim model running in the same process
// as longrun (embedded mode) never holds that process's event loop for one huge message.
import { parentPort } from "node:worker_threads";
import { countText } from "./tokens.ts";

parentPort?.on("message", (request: { id: number; text: string }) => {
  try {
    parentPort?.postMessage({ id: request.id, tokens: countText(request.text) });
  } catch (error) {
    parentPort?.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    });
  }
});
