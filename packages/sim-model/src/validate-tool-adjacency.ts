import { invalidRequest, SIM_ERROR_CODES, type SimError } from "./errors.ts";
import type { WireMessage } from "./wire.ts";

/**
 * Tool-call adjacency as strict providers enforce it: an assistant message with tool_calls must be
 * followed immediately by one tool message per call id (any order), with no unknown or duplicate ids,
 * and a tool message may only answer the assistant message directly before its block.
 */
export function validateToolAdjacency(messages: readonly WireMessage[]): SimError | undefined {
  // Ids answered anywhere so far: a second result for one of them is a duplicate, wherever it is.
  const answeredEver = new Set<string>();
  const duplicate = (id: string, at: number): SimError =>
    invalidRequest(
      SIM_ERROR_CODES.duplicateToolResult,
      `Invalid parameter: duplicate tool message for tool_call_id '${id}' at messages.[${at}].`,
      `messages.[${at}].tool_call_id`,
    );
  let index = 0;
  while (index < messages.length) {
    const message = messages[index]!;
    if (message.role === "tool") {
      if (answeredEver.has(message.tool_call_id ?? "")) return duplicate(message.tool_call_id ?? "", index);
      return invalidRequest(
        SIM_ERROR_CODES.unknownToolCallId,
        `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls'. No tool call with id '${message.tool_call_id}' precedes messages.[${index}].`,
        `messages.[${index}].tool_call_id`,
      );
    }
    index += 1;
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) continue;
    const pending = new Set(calls.map((call) => call.id));
    if (pending.size !== calls.length) {
      return invalidRequest(
        SIM_ERROR_CODES.invalidRequest,
        `Duplicate tool call ids in messages.[${index - 1}].tool_calls.`,
        `messages.[${index - 1}].tool_calls`,
      );
    }
    while (index < messages.length && messages[index]!.role === "tool") {
      const id = messages[index]!.tool_call_id ?? "";
      if (answeredEver.has(id)) return duplicate(id, index);
      if (!pending.has(id)) {
        return invalidRequest(
          SIM_ERROR_CODES.unknownToolCallId,
          `Invalid parameter: tool message at messages.[${index}] answers unknown tool_call_id '${id}'.`,
          `messages.[${index}].tool_call_id`,
        );
      }
      pending.delete(id);
      answeredEver.add(id);
      index += 1;
    }
    if (pending.size > 0) {
      return invalidRequest(
        SIM_ERROR_CODES.missingToolResult,
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending].join(", ")}`,
        `messages.[${index}].role`,
      );
    }
  }
  return undefined;
}
