import type { ChatMessage, NewMessage } from "@longrun/protocol";

/**
 * A transcript message as a fact to append: wire fields to stored fields, and any reasoning the log
 * carries kept apart as provider state (never in content), as the runtime stores model answers.
 */
export function toMessageInput(message: ChatMessage): NewMessage {
  const input: NewMessage = { role: message.role, content: message.content };
  if (message.name !== undefined) input.name = message.name;
  if (message.tool_calls && message.tool_calls.length > 0) input.toolCalls = message.tool_calls;
  if (message.tool_call_id !== undefined) input.toolCallId = message.tool_call_id;
  // A recorded result says nothing about failure in a machine-readable way: it happened, so "ok".
  if (message.role === "tool") input.toolStatus = "ok";
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
