import type { Answer, AnswerEvent, UpstreamChunk } from "@longrun/openai-compat";
import type OpenAI from "openai";
import { type ModelTimeouts, readAnswerStream, withModelDeadline } from "../step/model-deadline.ts";

/**
 * Streams one Chat Completions request to the upstream model. `onOpen` runs once the upstream has
 * accepted the request (an HTTP error throws before it), then every chunk's events reach `onEvent`.
 */
export async function streamUpstream(
  model: OpenAI,
  body: Record<string, unknown>,
  options: {
    signal: AbortSignal;
    headers?: Record<string, string>;
    /** First-byte and total timeouts (the thread's profile): past one, a ModelTimeoutError. */
    timeouts?: ModelTimeouts;
    onOpen(): void;
    onEvent(event: AnswerEvent): void;
  },
): Promise<Answer> {
  return withModelDeadline(options.timeouts, options.signal, async (deadline) => {
    const stream = (await model.chat.completions.create(body as never, {
      signal: deadline.signal,
      ...(options.headers ? { headers: options.headers } : {}),
    })) as unknown as AsyncIterable<UpstreamChunk>;
    options.onOpen();
    return readAnswerStream(stream, deadline, options.onEvent);
  });
}
