import { LongrunError } from "@longrun/protocol";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { errorResponse } from "./http-error.ts";

/** The most of an over-limit body read and thrown away so that its sender gets the 413. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
/** A sender slower than this to finish an over-limit body has its connection closed. */
const DRAIN_TIMEOUT_MS = 10_000;

/**
 * Refuses bodies over `limit` bytes with a JSON 413. A client that announced a large body is still
 * sending it when the answer is ready: closing the connection then makes its write fail (EPIPE) and
 * it never reads the 413. So the rest of the body is read and discarded, up to four times the limit
 * and ten seconds; past that the connection is closed, since a keep-alive socket with unread body
 * bytes on it cannot carry the next request.
 */
export function limitBody(limit: number): MiddlewareHandler {
  const drainCap = Math.min(4 * limit, MAX_DRAIN_BYTES);
  return bodyLimit({
    maxSize: limit,
    onError: async (context) => {
      const drained = await drainBody(context.req.raw.body, drainCap);
      if (!drained) context.header("connection", "close");
      return errorResponse(
        new LongrunError("payload_too_large", `request body over ${limit} bytes`),
        context,
      );
    },
  });
}

/**
 * Reads to its end, and discards, a request body the answer did not read (a 404, a 401, a call
 * refused before its body mattered). A keep-alive socket with unread body bytes on it cannot carry
 * the next request: the node adapter gives such a body half a second, then closes the socket under
 * the client's next request ("other side closed"; the hostile-input fuzz found it after a 404 to a
 * 400 kB POST). A body over `cap` bytes, too slow or broken closes the connection instead, said in
 * the answer (`connection: close`) so the client does not reuse it.
 */
export function readUnreadBody(cap: number): MiddlewareHandler {
  return async (context, next) => {
    await next();
    const request = context.req.raw;
    if (request.body === null || request.bodyUsed) return;
    if (!(await drainBody(request.body, cap))) context.header("connection", "close");
  };
}

/** Reads a body to its end and discards it; false when it is over `cap` bytes, too slow or broken. */
async function drainBody(body: ReadableStream<Uint8Array> | null, cap: number): Promise<boolean> {
  if (!body || body.locked) return false;
  const reader = body.getReader();
  // Cancelling a stalled upload: the read loop below ends either way.
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), DRAIN_TIMEOUT_MS);
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      bytes += value.byteLength;
      if (bytes > cap) {
        await reader.cancel();
        return false;
      }
    }
  } catch {
    // A broken or aborted upload: the caller answers 413/400 from this false; nothing to log.
    return false;
  } finally {
    clearTimeout(timer);
  }
}
