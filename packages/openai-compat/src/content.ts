import type { ContentPart, MessageContent } from "@longrun/protocol";

/** A content part as clients send it in either API. */
export interface WirePart {
  type: string;
  text?: string;
  image_url?: string | { url: string; detail?: string };
  [key: string]: unknown;
}

/**
 * Client content (a string or parts of either API) as fact content: a plain string when it is only
 * text, otherwise text and image parts.
 */
export function toFactContent(content: string | readonly WirePart[] | null | undefined): MessageContent {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  const parts: ContentPart[] = [];
  for (const part of content) {
    if (typeof part.text === "string" && /text$/.test(part.type))
      parts.push({ type: "text", text: part.text });
    else if (part.type === "refusal" && typeof part.refusal === "string")
      parts.push({ type: "text", text: part.refusal });
    else if (part.image_url !== undefined) {
      const url = typeof part.image_url === "string" ? part.image_url : part.image_url.url;
      parts.push({ type: "image_url", image_url: { url } });
    }
  }
  if (parts.every((part) => part.type === "text")) return parts.map((part) => part.text).join("");
  return parts;
}

/** The text of fact content (images left out). */
export function textOf(content: MessageContent | undefined): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
