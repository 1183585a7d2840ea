/**
 * Minimal Chat Completions wire types, defined here on purpose: the sim model judges what the
 * system under test sends, so it must not share its schemas.
 */

export type WireRole = "system" | "developer" | "user" | "assistant" | "tool";

export interface WireToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface WireTextPart {
  type: "text";
  text: string;
}

export interface WireImagePart {
  type: "image_url";
  image_url: { url: string; detail?: string };
}

export type WireContent = string | Array<WireTextPart | WireImagePart> | null;

export interface WireReasoningDetail {
  type: string;
  id?: string;
  data?: string;
  text?: string;
  summary?: string;
}

export interface WireMessage {
  role: WireRole;
  content?: WireContent;
  name?: string;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  reasoning_details?: WireReasoningDetail[];
  reasoning_content?: string;
}

export interface WireTool {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown };
}

export interface WireRequest {
  model: string;
  messages: WireMessage[];
  tools?: WireTool[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

/** The text of a message's content (text parts joined; images contribute nothing). */
export function contentText(content: WireContent | undefined): string {
  if (content == null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** Number of image parts in a message's content. */
export function imageCount(content: WireContent | undefined): number {
  if (content == null || typeof content === "string") return 0;
  return content.filter((part) => part.type === "image_url").length;
}
