import {
  type Answer,
  type AnswerEvent,
  createAnswerReader,
  type UpstreamChunk,
} from "@longrun/openai-compat";
import type OpenAI from "openai";

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
    onOpen(): void;
    onEvent(event: AnswerEvent): void;
  },
): Promise<Answer> {
  const stream = (await model.chat.completions.create(body as never, {
    signal: options.signal,
    ...(options.headers ? { headers: options.headers } : {}),
  })) as unknown as AsyncIterable<UpstreamChunk>;
  options.onOpen();
  const reader = createAnswerReader();
  for await (const chunk of stream) {
    for (const event of reader.push(chunk)) options.onEvent(event);
  }
  return reader.finish();
}
