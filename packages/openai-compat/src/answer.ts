import type { NewMessage, ProviderState, ReasoningDetail, ToolCall, Usage } from "@longrun/protocol";
import { type ChatUsage, usageFromChat } from "./usage.ts";

/** One piece of an answer as it streams, independent of the API it is told to the client in. */
export type AnswerEvent =
  | { type: "text"; delta: string }
  | { type: "reasoning"; state: ProviderState }
  | { type: "tool_call"; index: number; id: string; name: string }
  | { type: "tool_arguments"; index: number; delta: string };

/** The finished answer: the fact to append and what the client is told about it. */
export interface Answer {
  message: NewMessage & { role: "assistant" };
  usage?: Usage;
  finishReason: "stop" | "tool_calls" | "length" | "content_filter";
}

/** A Chat Completions stream chunk as an upstream sends it (only what is read here). */
export interface UpstreamChunk {
  id?: string;
  choices?: Array<{
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning_details?: ReasoningDetail[] | null;
      tool_calls?: Array<{
        index: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }> | null;
    } | null;
    finish_reason?: string | null;
  }>;
  usage?: ChatUsage | null;
}

function finishReasonOf(value: string | undefined, hasCalls: boolean): Answer["finishReason"] {
  if (value === "length" || value === "content_filter") return value;
  return hasCalls ? "tool_calls" : "stop";
}

/**
 * Reads an upstream Chat Completions stream: each chunk becomes answer events for the client, and
 * the whole becomes the assistant fact (provider-private reasoning kept apart in `providerState`).
 */
export function createAnswerReader() {
  let content = "";
  let reasoningContent = "";
  const reasoningDetails: ReasoningDetail[] = [];
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  let usage: Usage | undefined;
  let finish: string | undefined;
  let responseId: string | undefined;
  return {
    push(chunk: UpstreamChunk): AnswerEvent[] {
      const events: AnswerEvent[] = [];
      responseId ??= chunk.id;
      if (chunk.usage) usage = usageFromChat(chunk.usage);
      const choice = chunk.choices?.[0];
      if (choice?.finish_reason) finish = choice.finish_reason;
      const delta = choice?.delta;
      if (!delta) return events;
      if (delta.reasoning_content) {
        reasoningContent += delta.reasoning_content;
        events.push({ type: "reasoning", state: { reasoningContent: delta.reasoning_content } });
      }
      if (delta.reasoning_details?.length) {
        reasoningDetails.push(...delta.reasoning_details);
        events.push({ type: "reasoning", state: { reasoningDetails: delta.reasoning_details } });
      }
      if (delta.content) {
        content += delta.content;
        events.push({ type: "text", delta: delta.content });
      }
      for (const part of delta.tool_calls ?? []) {
        let call = calls.get(part.index);
        if (!call) {
          call = { id: part.id ?? "", name: part.function?.name ?? "", arguments: "" };
          calls.set(part.index, call);
          events.push({ type: "tool_call", index: part.index, id: call.id, name: call.name });
        } else {
          if (part.id) call.id = part.id;
          if (part.function?.name) call.name += part.function.name;
        }
        if (part.function?.arguments) {
          call.arguments += part.function.arguments;
          events.push({ type: "tool_arguments", index: part.index, delta: part.function.arguments });
        }
      }
      return events;
    },
    finish(): Answer {
      const toolCalls: ToolCall[] = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call]) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        }));
      // The provider's response id is kept with the fact even without reasoning: it names the answer in
      // the provider's own logs (and the trace's model call span).
      const hasState = reasoningDetails.length > 0 || reasoningContent.length > 0 || Boolean(responseId);
      return {
        message: {
          role: "assistant",
          content: content.length > 0 ? content : toolCalls.length > 0 ? null : "",
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
          ...(usage ? { usage } : {}),
          ...(hasState
            ? {
                providerState: {
                  ...(reasoningDetails.length > 0 ? { reasoningDetails } : {}),
                  ...(reasoningContent ? { reasoningContent } : {}),
                  ...(responseId ? { responseId } : {}),
                },
              }
            : {}),
        },
        ...(usage ? { usage } : {}),
        finishReason: finishReasonOf(finish, toolCalls.length > 0),
      };
    },
  };
}

/** A stored answer told again (a retried request): the events it streamed the first time. */
export function replayAnswer(message: NewMessage): { events: AnswerEvent[]; answer: Answer } {
  const events: AnswerEvent[] = [];
  if (message.providerState) events.push({ type: "reasoning", state: message.providerState });
  const text = typeof message.content === "string" ? message.content : "";
  if (text) events.push({ type: "text", delta: text });
  (message.toolCalls ?? []).forEach((call, index) => {
    events.push({ type: "tool_call", index, id: call.id, name: call.function.name });
    if (call.function.arguments)
      events.push({ type: "tool_arguments", index, delta: call.function.arguments });
  });
  const hasCalls = (message.toolCalls?.length ?? 0) > 0;
  return {
    events,
    answer: {
      message: { ...message, role: "assistant" },
      ...(message.usage ? { usage: message.usage } : {}),
      finishReason: hasCalls ? "tool_calls" : "stop",
    },
  };
}
