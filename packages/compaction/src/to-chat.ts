import type { ChatMessage, StoredMessage } from "@longrun/protocol";

/** Options of toChatMessage(s). */
export interface ToChatOptions {
  /**
   * Replay providerState.reasoningDetails as `reasoning_details` on assistant messages: only valid in
   * the chain the state was issued in (see issuedInChain).
   */
  replayReasoning?: boolean;
}

/** One stored fact in Chat Completions wire shape. */
export function toChatMessage(message: StoredMessage, options: ToChatOptions = {}): ChatMessage {
  const wire: ChatMessage = { role: message.role, content: message.content };
  if (message.name !== undefined) wire.name = message.name;
  if (message.toolCalls && message.toolCalls.length > 0) wire.tool_calls = message.toolCalls;
  if (message.toolCallId !== undefined) wire.tool_call_id = message.toolCallId;
  const details = message.providerState?.reasoningDetails;
  if (options.replayReasoning && message.role === "assistant" && details && details.length > 0) {
    wire.reasoning_details = details;
  }
  return wire;
}

/** Stored facts in wire shape (provider state only when replayReasoning is set). */
export function toChatMessages(
  messages: readonly StoredMessage[],
  options: ToChatOptions = {},
): ChatMessage[] {
  return messages.map((message) => toChatMessage(message, options));
}
