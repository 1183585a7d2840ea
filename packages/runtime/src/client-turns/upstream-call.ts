import {
  type Answer,
  type AnswerEvent,
  createAnswerReader,
  type UpstreamChunk,
} from "@longrun/openai-compat";
import type OpenAI from "openai";
import { type ModelTimeouts, startModelDeadline } from "../step/model-deadline.ts";

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
  const deadline = startModelDeadline(options.timeouts, options.signal);
  try {
    const stream = (await model.chat.completions.create(body as never, {
      signal: deadline.signal,
      ...(options.headers ? { headers: options.headers } : {}),
    })) as unknown as AsyncIterable<UpstreamChunk>;
    options.onOpen();
    const reader = createAnswerReader();
    for await (const chunk of stream) {
      deadline.answered();
      for (const event of reader.push(chunk)) options.onEvent(event);
    }
    // The client's stream ends quietly when its signal aborts: a cut-off answer must not pass as whole.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    return reader.finish();
  } catch (error) {
    throw deadline.explain(error);
  } finally {
    deadline.clear();
  }
}
