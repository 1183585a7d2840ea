import type { ChatMessage } from "@longrun/protocol";

/** True when a message carries provider-private reasoning or encrypted state. */
export function hasProviderState(message: ChatMessage): boolean {
  return message.reasoning_details !== undefined || message.reasoning_content !== undefined;
}

/** Drops provider-private reasoning fields; visible text and tool pairs stay as they are. */
export function sanitizeMessage(message: ChatMessage): ChatMessage {
  if (!hasProviderState(message)) return message;
  const { reasoning_details: _details, reasoning_content: _content, ...visible } = message;
  return visible;
}

/** Sanitizes a list for a request outside the chain that produced its reasoning state. */
export function sanitizeMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.map(sanitizeMessage);
}
