import type { ChatMessage, ReasoningDetail } from "@longrun/protocol";
import { ANTHROPIC_REASONING_FORMAT } from "./provider-rules/formats.ts";

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

/**
 * Whether all of some provider state is Anthropic's signed thinking: a thinking block is bound to its own
 * text by its signature, not to the conversation before it (the provider checks the signature only), so
 * a rewrite of an earlier message does not invalidate it — where OpenAI's encrypted reasoning is bound to
 * the exact prefix it was issued after.
 */
export function isSignedThinkingOnly(
  details: readonly ReasoningDetail[] | undefined,
  reasoningContent: string | undefined,
): boolean {
  return (
    reasoningContent === undefined &&
    details !== undefined &&
    details.length > 0 &&
    details.every((detail) => detail.format === ANTHROPIC_REASONING_FORMAT)
  );
}

/** A wire message whose provider state is all Anthropic's signed thinking (see isSignedThinkingOnly). */
export function carriesSignedThinkingOnly(message: ChatMessage): boolean {
  return isSignedThinkingOnly(message.reasoning_details, message.reasoning_content);
}
