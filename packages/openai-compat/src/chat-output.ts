import type { Answer, AnswerEvent } from "./answer.ts";
import { usageToChat } from "./usage.ts";

/** Identity of one answer told to a Chat Completions client. */
export interface ChatAnswerIdentity {
  id: string;
  model: string;
  created: number;
}

/** Tells an answer to a Chat Completions client as `chat.completion.chunk` objects. */
export function createChatStreamEncoder(identity: ChatAnswerIdentity, options: { includeUsage: boolean }) {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: identity.id,
    object: "chat.completion.chunk",
    created: identity.created,
    model: identity.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(options.includeUsage ? { usage: null } : {}),
  });
  return {
    start: (): unknown[] => [chunk({ role: "assistant", content: "" })],
    event(event: AnswerEvent): unknown[] {
      switch (event.type) {
        case "text":
          return [chunk({ content: event.delta })];
        case "reasoning":
          return [
            chunk({
              ...(event.state.reasoningContent ? { reasoning_content: event.state.reasoningContent } : {}),
              ...(event.state.reasoningDetails ? { reasoning_details: event.state.reasoningDetails } : {}),
            }),
          ];
        case "tool_call":
          return [
            chunk({
              tool_calls: [
                {
                  index: event.index,
                  id: event.id,
                  type: "function",
                  function: { name: event.name, arguments: "" },
                },
              ],
            }),
          ];
        case "tool_arguments":
          return [chunk({ tool_calls: [{ index: event.index, function: { arguments: event.delta } }] })];
        default: {
          const exhaustive: never = event;
          throw new Error(`unknown answer event ${JSON.stringify(exhaustive)}`);
        }
      }
    },
    finish(answer: Answer): unknown[] {
      const chunks: unknown[] = [chunk({}, answer.finishReason)];
      if (options.includeUsage && answer.usage) {
        chunks.push({
          id: identity.id,
          object: "chat.completion.chunk",
          created: identity.created,
          model: identity.model,
          choices: [],
          usage: usageToChat(answer.usage),
        });
      }
      return chunks;
    },
  };
}

/** A whole answer as a non-streaming `chat.completion` body. */
export function chatCompletionBody(identity: ChatAnswerIdentity, answer: Answer): unknown {
  const message = answer.message;
  return {
    id: identity.id,
    object: "chat.completion",
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: typeof message.content === "string" ? message.content : null,
          refusal: null,
          ...(message.toolCalls?.length ? { tool_calls: message.toolCalls } : {}),
          ...(message.providerState?.reasoningContent
            ? { reasoning_content: message.providerState.reasoningContent }
            : {}),
          ...(message.providerState?.reasoningDetails
            ? { reasoning_details: message.providerState.reasoningDetails }
            : {}),
        },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    ...(answer.usage ? { usage: usageToChat(answer.usage) } : {}),
  };
}
