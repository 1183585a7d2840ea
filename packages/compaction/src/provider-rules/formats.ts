import type { ChatMessage, ReasoningDetail } from "@longrun/protocol";

/** `format` of a reasoning item from an OpenAI Responses reasoning output item (OpenRouter's name). */
export const RESPONSES_REASONING_FORMAT = "openai-responses-v1";
/** `format` of a reasoning item from an Anthropic thinking or redacted_thinking block. */
export const ANTHROPIC_REASONING_FORMAT = "anthropic-claude-v1";

/** The reasoning items of a message that the provider speaking `format` issued (others are foreign). */
export function reasoningOf(message: ChatMessage, format: string): ReasoningDetail[] {
  return (message.reasoning_details ?? []).filter((detail) => detail.format === format);
}

/** Text of a Chat Completions content (text parts joined, images left out). */
export function textOf(content: ChatMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The image URLs of a content. */
export function imagesOf(content: ChatMessage["content"]): string[] {
  if (content === null || typeof content === "string") return [];
  return content.flatMap((part) => (part.type === "image_url" ? [part.image_url.url] : []));
}
