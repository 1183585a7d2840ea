import type { ProviderState } from "@longrun/protocol";
import type { Answer, AnswerEvent } from "./answer.ts";
import type { ToolRoute } from "./client-turn.ts";
import { encodeProviderState } from "./encrypted-state.ts";
import { usageToResponses } from "./usage.ts";

/** Identity of one answer told to a Responses client. */
export interface ResponsesAnswerIdentity {
  id: string;
  model: string;
  createdAt: number;
}

type OutputItem = Record<string, unknown> & { type: string; id: string };

function responseObject(
  identity: ResponsesAnswerIdentity,
  status: "in_progress" | "completed" | "failed",
  output: OutputItem[],
  extra: Record<string, unknown> = {},
) {
  return {
    id: identity.id,
    object: "response",
    created_at: identity.createdAt,
    status,
    model: identity.model,
    output,
    error: null,
    incomplete_details: null,
    ...extra,
  };
}

/** The client-side item of an upstream function call: a function, a namespaced function or a custom tool. */
function callItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  route: ToolRoute | undefined,
): OutputItem {
  if (route?.kind === "custom") {
    let input = args;
    try {
      const parsed = JSON.parse(args) as { input?: unknown };
      if (typeof parsed.input === "string") input = parsed.input;
    } catch {
      // Arguments that are not the expected JSON travel as they are.
    }
    return { type: "custom_tool_call", id, call_id: callId, name: route.name, input, status: "completed" };
  }
  return {
    type: "function_call",
    id,
    call_id: callId,
    name: route?.name ?? name,
    ...(route?.namespace ? { namespace: route.namespace } : {}),
    arguments: args,
    status: "completed",
  };
}

/**
 * Tells an answer to a Responses client as server-sent events (`response.created` … `response.completed`):
 * a reasoning item carrying the provider-private state (as `encrypted_content`), a message item for the
 * text, one function call item per tool call.
 */
export function createResponsesStreamEncoder(
  identity: ResponsesAnswerIdentity,
  routes: Record<string, ToolRoute>,
) {
  let sequence = 0;
  const output: OutputItem[] = [];
  let state: ProviderState | null = null;
  let reasoningDone = false;
  let message: { item: OutputItem; index: number; text: string } | null = null;
  const calls = new Map<
    number,
    { index: number; id: string; callId: string; name: string; arguments: string }
  >();
  const ev = (type: string, body: Record<string, unknown>) => ({
    type,
    sequence_number: sequence++,
    ...body,
  });

  const flushReasoning = (): unknown[] => {
    if (reasoningDone || !state) return [];
    reasoningDone = true;
    const item: OutputItem = {
      type: "reasoning",
      id: `rs_${identity.id}_${output.length}`,
      summary: [],
      encrypted_content: encodeProviderState(state),
    };
    const index = output.push(item) - 1;
    return [
      ev("response.output_item.added", { output_index: index, item }),
      ev("response.output_item.done", { output_index: index, item }),
    ];
  };
  const closeMessage = (): unknown[] => {
    if (!message) return [];
    const { item, index, text } = message;
    message = null;
    const part = { type: "output_text", text, annotations: [] };
    const done = { ...item, status: "completed", content: [part] };
    output[index] = done;
    return [
      ev("response.output_text.done", { item_id: item.id, output_index: index, content_index: 0, text }),
      ev("response.content_part.done", { item_id: item.id, output_index: index, content_index: 0, part }),
      ev("response.output_item.done", { output_index: index, item: done }),
    ];
  };
  const closeCalls = (): unknown[] => {
    const events: unknown[] = [];
    for (const call of [...calls.values()].sort((a, b) => a.index - b.index)) {
      const item = callItem(call.id, call.callId, call.name, call.arguments, routes[call.name]);
      output[call.index] = item;
      if (item.type === "function_call") {
        events.push(
          ev("response.function_call_arguments.done", {
            item_id: call.id,
            output_index: call.index,
            arguments: call.arguments,
          }),
        );
      }
      events.push(ev("response.output_item.done", { output_index: call.index, item }));
    }
    calls.clear();
    return events;
  };

  return {
    start: (): unknown[] => [
      ev("response.created", { response: responseObject(identity, "in_progress", []) }),
      ev("response.in_progress", { response: responseObject(identity, "in_progress", []) }),
    ],
    event(event: AnswerEvent): unknown[] {
      switch (event.type) {
        case "reasoning": {
          const previous: ProviderState = state ?? {};
          state = {
            ...previous,
            ...(event.state.reasoningDetails
              ? { reasoningDetails: [...(previous.reasoningDetails ?? []), ...event.state.reasoningDetails] }
              : {}),
            ...(event.state.reasoningContent
              ? { reasoningContent: (previous.reasoningContent ?? "") + event.state.reasoningContent }
              : {}),
          };
          return [];
        }
        case "text": {
          const events = flushReasoning();
          if (!message) {
            const item: OutputItem = {
              type: "message",
              id: `msg_${identity.id}_${output.length}`,
              status: "in_progress",
              role: "assistant",
              content: [],
            };
            const index = output.push(item) - 1;
            message = { item, index, text: "" };
            events.push(
              ev("response.output_item.added", { output_index: index, item }),
              ev("response.content_part.added", {
                item_id: item.id,
                output_index: index,
                content_index: 0,
                part: { type: "output_text", text: "", annotations: [] },
              }),
            );
          }
          message.text += event.delta;
          events.push(
            ev("response.output_text.delta", {
              item_id: message.item.id,
              output_index: message.index,
              content_index: 0,
              delta: event.delta,
            }),
          );
          return events;
        }
        case "tool_call": {
          const events = [...flushReasoning(), ...closeMessage()];
          const id = `fc_${identity.id}_${output.length}`;
          const route = routes[event.name];
          const pending = callItem(id, event.id, event.name, "", route);
          const index = output.push({ ...pending, status: "in_progress" }) - 1;
          calls.set(event.index, { index, id, callId: event.id, name: event.name, arguments: "" });
          events.push(ev("response.output_item.added", { output_index: index, item: output[index] }));
          return events;
        }
        case "tool_arguments": {
          const call = calls.get(event.index);
          if (!call) return [];
          call.arguments += event.delta;
          if (routes[call.name]?.kind === "custom") return [];
          return [
            ev("response.function_call_arguments.delta", {
              item_id: call.id,
              output_index: call.index,
              delta: event.delta,
            }),
          ];
        }
        default: {
          const exhaustive: never = event;
          throw new Error(`unknown answer event ${JSON.stringify(exhaustive)}`);
        }
      }
    },
    finish(answer: Answer): unknown[] {
      const events = [...flushReasoning(), ...closeMessage(), ...closeCalls()];
      events.push(
        ev("response.completed", {
          response: responseObject(identity, "completed", output, {
            ...(answer.usage ? { usage: usageToResponses(answer.usage) } : {}),
          }),
        }),
      );
      return events;
    },
    /** A failure after the stream began: the client sees `response.failed` with the reason. */
    fail(code: string, message: string): unknown[] {
      return [
        ev("response.failed", {
          response: responseObject(identity, "failed", output, { error: { code, message } }),
        }),
      ];
    },
  };
}

/** A whole answer as a non-streaming Responses body (the `response` of `response.completed`). */
export function responseBody(
  identity: ResponsesAnswerIdentity,
  routes: Record<string, ToolRoute>,
  events: readonly AnswerEvent[],
  answer: Answer,
): unknown {
  const encoder = createResponsesStreamEncoder(identity, routes);
  encoder.start();
  for (const event of events) encoder.event(event);
  const completed = encoder.finish(answer).at(-1) as { response: unknown };
  return completed.response;
}
