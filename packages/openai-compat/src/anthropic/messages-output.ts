import type { Message, RawMessageStreamEvent, StopReason } from "@anthropic-ai/sdk/resources/messages";
import type { ProviderState } from "@longrun/protocol";
import type { Answer, AnswerEvent } from "../answer.ts";
import { encodeProviderState } from "../encrypted-state.ts";
import {
  type AppliedContextEdit,
  deltaUsage,
  type PromptCacheFigures,
  usageToMessages,
} from "./messages-usage.ts";

/** Identity of one answer told to a Messages client. */
export interface MessagesAnswerIdentity {
  id: string;
  model: string;
  /** Tell the reasoning as thinking blocks (the request enabled thinking). */
  thinking: boolean;
}

/** What the turn measured besides the answer: cache figures and the context edits applied. */
export interface MessagesAnswerExtras {
  cache?: PromptCacheFigures;
  appliedEdits?: AppliedContextEdit[];
}

type StreamEvent = RawMessageStreamEvent | { type: "ping" };

/**
 * The part of provider state a thinking block carries. The response id is left out so that a
 * retried request, answered from the log, tells the very same signature.
 */
function signedState(state: ProviderState): ProviderState {
  return {
    ...(state.reasoningDetails?.length ? { reasoningDetails: state.reasoningDetails } : {}),
    ...(state.reasoningContent ? { reasoningContent: state.reasoningContent } : {}),
  };
}

function readableReasoning(state: ProviderState): string {
  const details = (state.reasoningDetails ?? []).map((detail) =>
    detail.type === "reasoning.text"
      ? detail.text
      : detail.type === "reasoning.summary"
        ? detail.summary
        : "",
  );
  return [state.reasoningContent ?? "", ...details].filter(Boolean).join("\n");
}

function stopReasonOf(answer: Answer): StopReason {
  if (answer.finishReason === "length") return "max_tokens";
  if (answer.finishReason === "content_filter") return "refusal";
  return answer.finishReason === "tool_calls" ? "tool_use" : "end_turn";
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text || "{}");
  } catch {
    // Malformed tool input from the model: an empty input, as Anthropic clients expect an object.
    return {};
  }
}

/**
 * Tells an answer to a Messages client as the API streams it: message_start, then per content block
 * content_block_start / _delta / _stop (a thinking block carrying the provider-private state as its
 * signature, text, tool_use with input_json_delta), message_delta with the stop reason and the whole
 * usage, message_stop. The blocks are collected too, for the non-streamed body.
 */
export function createMessagesStreamEncoder(identity: MessagesAnswerIdentity) {
  const content: Message["content"] = [];
  let state: ProviderState | null = null;
  let open: { kind: "text" | "tool"; index: number; upstreamIndex?: number; json?: string } | null = null;

  const close = (): StreamEvent[] => {
    if (!open) return [];
    const block = content[open.index];
    if (open.kind === "tool" && block?.type === "tool_use") block.input = parseInput(open.json ?? "");
    const index = open.index;
    open = null;
    return [{ type: "content_block_stop", index }];
  };
  const flushThinking = (): StreamEvent[] => {
    if (!state || !identity.thinking) return [];
    const signed = signedState(state);
    state = null;
    if (!signed.reasoningDetails && !signed.reasoningContent) return [];
    const signature = encodeProviderState(signed);
    const thinking = readableReasoning(signed);
    const index = content.length;
    if (!thinking) {
      content.push({ type: "redacted_thinking", data: signature });
      return [
        { type: "content_block_start", index, content_block: { type: "redacted_thinking", data: signature } },
        { type: "content_block_stop", index },
      ];
    }
    content.push({ type: "thinking", thinking, signature });
    return [
      {
        type: "content_block_start",
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } },
      { type: "content_block_delta", index, delta: { type: "signature_delta", signature } },
      { type: "content_block_stop", index },
    ];
  };

  return {
    start(): StreamEvent[] {
      const message = {
        id: identity.id,
        type: "message",
        role: "assistant",
        model: identity.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      } as unknown as Message;
      return [{ type: "message_start", message }, { type: "ping" }];
    },
    event(event: AnswerEvent): StreamEvent[] {
      switch (event.type) {
        case "reasoning": {
          const previous: ProviderState = state ?? {};
          state = {
            ...(previous.reasoningDetails || event.state.reasoningDetails
              ? {
                  reasoningDetails: [
                    ...(previous.reasoningDetails ?? []),
                    ...(event.state.reasoningDetails ?? []),
                  ],
                }
              : {}),
            ...(previous.reasoningContent || event.state.reasoningContent
              ? { reasoningContent: (previous.reasoningContent ?? "") + (event.state.reasoningContent ?? "") }
              : {}),
          };
          return [];
        }
        case "text": {
          const events = flushThinking();
          if (open?.kind !== "text") {
            events.push(...close());
            const index = content.push({ type: "text", text: "", citations: null }) - 1;
            open = { kind: "text", index };
            events.push({
              type: "content_block_start",
              index,
              content_block: { type: "text", text: "", citations: null },
            });
          }
          const block = content[open.index];
          if (block?.type === "text") block.text += event.delta;
          events.push({
            type: "content_block_delta",
            index: open.index,
            delta: { type: "text_delta", text: event.delta },
          });
          return events;
        }
        case "tool_call": {
          const events = [...flushThinking(), ...close()];
          const block = { type: "tool_use" as const, id: event.id, name: event.name, input: {} };
          const index = content.push(block as Message["content"][number]) - 1;
          open = { kind: "tool", index, upstreamIndex: event.index, json: "" };
          events.push({ type: "content_block_start", index, content_block: { ...block } as never });
          return events;
        }
        case "tool_arguments": {
          if (open?.kind !== "tool" || open.upstreamIndex !== event.index) return [];
          open.json += event.delta;
          return [
            {
              type: "content_block_delta",
              index: open.index,
              delta: { type: "input_json_delta", partial_json: event.delta },
            },
          ];
        }
        default: {
          const exhaustive: never = event;
          throw new Error(`unknown answer event ${JSON.stringify(exhaustive)}`);
        }
      }
    },
    finish(answer: Answer, extras: MessagesAnswerExtras = {}): StreamEvent[] {
      const events = [...flushThinking(), ...close()];
      const usage = usageToMessages(answer.usage, extras.cache);
      events.push(
        {
          type: "message_delta",
          delta: { stop_reason: stopReasonOf(answer), stop_sequence: null },
          usage: deltaUsage(usage),
          ...(extras.appliedEdits ? { context_management: { applied_edits: extras.appliedEdits } } : {}),
        } as RawMessageStreamEvent,
        { type: "message_stop" },
      );
      return events;
    },
    /** The whole answer as a non-streamed Messages body (after every event went through `event`). */
    body(answer: Answer, extras: MessagesAnswerExtras = {}): Message {
      this.finish(answer, extras);
      return {
        id: identity.id,
        type: "message",
        role: "assistant",
        model: identity.model,
        content,
        stop_reason: stopReasonOf(answer),
        stop_sequence: null,
        usage: usageToMessages(answer.usage, extras.cache),
        ...(extras.appliedEdits ? { context_management: { applied_edits: extras.appliedEdits } } : {}),
      } as unknown as Message;
    },
  };
}
