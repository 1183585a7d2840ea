import { RESPONSES_REASONING_FORMAT } from "@longrun/compaction";
import type { AnswerEvent } from "@longrun/openai-compat";
import type { ReasoningDetail } from "@longrun/protocol";
import type OpenAI from "openai";

/** A reasoning item's state as longrun keeps it: summary parts and encrypted content, tagged with the item id. */
export function reasoningDetailsOf(item: OpenAI.Responses.ResponseReasoningItem): ReasoningDetail[] {
  const details: ReasoningDetail[] = item.summary.map((part) => ({
    type: "reasoning.summary",
    summary: part.text,
    id: item.id,
    format: RESPONSES_REASONING_FORMAT,
  }));
  if (item.encrypted_content)
    details.push({
      type: "reasoning.encrypted",
      data: item.encrypted_content,
      id: item.id,
      format: RESPONSES_REASONING_FORMAT,
    });
  return details;
}

/**
 * Turns a Responses stream's events into answer events as they come: text deltas, each function call
 * when its item opens (numbered in output order) and its argument deltas, each reasoning item whole
 * when it is done (its encrypted content only comes then).
 */
export function createResponsesEventReader() {
  const calls = new Map<number, { index: number; streamed: boolean }>();
  return (event: OpenAI.Responses.ResponseStreamEvent): AnswerEvent[] => {
    if (event.type === "response.output_text.delta") return [{ type: "text", delta: event.delta }];
    if (event.type === "response.output_item.added" && event.item.type === "function_call") {
      const index = calls.size;
      calls.set(event.output_index, { index, streamed: false });
      return [{ type: "tool_call", index, id: event.item.call_id, name: event.item.name }];
    }
    if (event.type === "response.function_call_arguments.delta") {
      const call = calls.get(event.output_index);
      if (!call || event.delta === "") return [];
      call.streamed = true;
      return [{ type: "tool_arguments", index: call.index, delta: event.delta }];
    }
    if (event.type === "response.output_item.done") {
      const item = event.item;
      if (item.type === "reasoning") {
        const details = reasoningDetailsOf(item);
        return details.length > 0 ? [{ type: "reasoning", state: { reasoningDetails: details } }] : [];
      }
      const call = calls.get(event.output_index);
      // A provider that sends a call's arguments only with the finished item: told whole, once.
      if (item.type === "function_call" && call && !call.streamed && item.arguments)
        return [{ type: "tool_arguments", index: call.index, delta: item.arguments }];
    }
    return [];
  };
}
