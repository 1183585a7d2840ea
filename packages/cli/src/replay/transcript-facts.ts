import type { ChatMessage, NewMessage } from "@longrun/protocol";

/**
 * A transcript message as a fact to append: wire fields to stored fields, and any reasoning the log
 * carries kept apart as provider state (never in content), as the runtime stores model answers.
 */
export function toMessageInput(message: ChatMessage, resultsOk = true): NewMessage {
  const input: NewMessage = { role: message.role, content: message.content };
  if (message.name !== undefined) input.name = message.name;
  if (message.tool_calls && message.tool_calls.length > 0) input.toolCalls = message.tool_calls;
  if (message.tool_call_id !== undefined) input.toolCallId = message.tool_call_id;
  // A recorded result says nothing about failure in a machine-readable way: it happened, so "ok"
  // (unless the log is known to record no status: then the ledger has only the result's words).
  if (message.role === "tool" && resultsOk) input.toolStatus = "ok";
  const details = message.reasoning_details;
  const reasoning = message.reasoning_content;
  if ((details && details.length > 0) || reasoning) {
    input.providerState = {
      ...(details && details.length > 0 ? { reasoningDetails: details } : {}),
      ...(reasoning ? { reasoningContent: reasoning } : {}),
    };
  }
  return input;
}
