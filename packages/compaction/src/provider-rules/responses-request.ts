import type { ChatMessage } from "@longrun/protocol";
import { imagesOf, RESPONSES_REASONING_FORMAT, reasoningOf, textOf } from "./formats.ts";

/** Input items of an OpenAI Responses request, as longrun sends them (`store: false`). */
export type ResponsesInputItem =
  | {
      type: "message";
      role: "system" | "user" | "assistant";
      content:
        | string
        | Array<
            { type: "input_text"; text: string } | { type: "input_image"; image_url: string; detail: "auto" }
          >;
    }
  | { type: "reasoning"; summary: Array<{ type: "summary_text"; text: string }>; encrypted_content: string }
  | { type: "function_call"; call_id: string; name: string; arguments: string }
  | { type: "function_call_output"; call_id: string; output: string };

/**
 * Rebuilds a Responses reasoning item from the details one answer's item left (grouped by its id, in
 * order): the encrypted content byte-exact, its summary parts as they came. The id is never sent:
 * under `store: false` the provider keeps no items, and an echoed id answers "Item '…' not found".
 */
function reasoningItems(message: ChatMessage): ResponsesInputItem[] {
  const groups = new Map<string, { summary: string[]; encrypted?: string }>();
  for (const [index, detail] of reasoningOf(message, RESPONSES_REASONING_FORMAT).entries()) {
    const key = detail.id ?? `#${index}`;
    const group = groups.get(key) ?? { summary: [] };
    groups.set(key, group);
    if (detail.type === "reasoning.summary") group.summary.push(detail.summary);
    else if (detail.type === "reasoning.encrypted") group.encrypted = detail.data;
  }
  const items: ResponsesInputItem[] = [];
  for (const group of groups.values()) {
    // Without its encrypted content an item is only a reference to a stored one: never sent.
    if (group.encrypted === undefined) continue;
    items.push({
      type: "reasoning",
      summary: group.summary.map((text) => ({ type: "summary_text", text })),
      encrypted_content: group.encrypted,
    });
  }
  return items;
}

function userContent(message: ChatMessage): ResponsesInputItem & { type: "message" } {
  const images = imagesOf(message.content);
  if (images.length === 0) return { type: "message", role: "user", content: textOf(message.content) };
  const text = textOf(message.content);
  return {
    type: "message",
    role: "user",
    content: [
      ...(text ? [{ type: "input_text" as const, text }] : []),
      ...images.map((url) => ({ type: "input_image" as const, image_url: url, detail: "auto" as const })),
    ],
  };
}

/**
 * A projected history as Responses input: each assistant answer's reasoning items back in place
 * before its message and calls (only items this provider issued; another format's state is foreign),
 * no ids, no `item_reference`, no `previous_response_id` (responses are not stored).
 */
export function toResponsesInput(messages: readonly ChatMessage[]): ResponsesInputItem[] {
  const items: ResponsesInputItem[] = [];
  for (const message of messages) {
    if (message.role === "system") {
      items.push({ type: "message", role: "system", content: textOf(message.content) });
    } else if (message.role === "user") {
      items.push(userContent(message));
    } else if (message.role === "tool") {
      items.push({
        type: "function_call_output",
        call_id: message.tool_call_id ?? "",
        output: textOf(message.content),
      });
    } else {
      items.push(...reasoningItems(message));
      const text = textOf(message.content);
      if (text) items.push({ type: "message", role: "assistant", content: text });
      for (const call of message.tool_calls ?? []) {
        items.push({
          type: "function_call",
          call_id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      }
    }
  }
  return items;
}

/**
 * What a strict Responses endpoint would refuse in this input under `store: false` (empty when none):
 * an item id or item reference, an output without its call, a call without its output.
 */
export function responsesViolations(items: readonly ResponsesInputItem[]): string[] {
  const problems: string[] = [];
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const [index, item] of items.entries()) {
    const loose = item as Record<string, unknown>;
    if ("id" in loose) problems.push(`item ${index} carries an id under store: false`);
    if (loose.type === "item_reference") problems.push(`item ${index} is an item_reference`);
    if (item.type === "function_call") calls.add(item.call_id);
    if (item.type === "function_call_output") {
      if (!calls.has(item.call_id)) problems.push(`output ${item.call_id} has no call before it`);
      answered.add(item.call_id);
    }
    if (item.type === "reasoning" && !item.encrypted_content) problems.push(`reasoning ${index} is empty`);
  }
  for (const call of calls) if (!answered.has(call)) problems.push(`call ${call} has no output`);
  return problems;
}
