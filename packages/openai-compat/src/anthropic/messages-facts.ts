import type { ContentPart, NewMessage, ProviderState, ToolCall } from "@longrun/protocol";
import { decodeProviderState } from "../encrypted-state.ts";
import type { WireBlock } from "./messages-request.ts";

const MARKER = Symbol.for("longrun.invalid-messages-request");

/** A Messages request the Anthropic API itself would refuse (400 invalid_request_error). */
export class InvalidMessagesRequest extends Error {
  readonly [MARKER] = true;
  constructor(message: string) {
    super(message);
    this.name = "InvalidMessagesRequest";
  }

  /** True for any InvalidMessagesRequest, even one made by another copy of this package. */
  static isInstance(value: unknown): value is InvalidMessagesRequest {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

type WireContent = string | WireBlock[];

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The text of a content value (text blocks joined; other blocks left out). */
export function blocksText(content: WireContent | undefined): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? (str(block.text) ?? "") : "")).join("");
}

function imagePart(block: WireBlock): ContentPart | undefined {
  const source = block.source as Record<string, unknown> | undefined;
  if (source?.type === "base64" && typeof source.data === "string") {
    return { type: "image_url", image_url: { url: `data:${str(source.media_type)};base64,${source.data}` } };
  }
  if (source?.type === "url" && typeof source.url === "string")
    return { type: "image_url", image_url: { url: source.url } };
  return undefined;
}

/** User-visible content of blocks: text and images; a plain string when it is only text. */
function userContent(blocks: readonly WireBlock[]): NewMessage["content"] {
  const parts: ContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "text" && typeof block.text === "string")
      parts.push({ type: "text", text: block.text });
    else if (block.type === "image") {
      const part = imagePart(block);
      if (part) parts.push(part);
    } else if (block.type === "document") {
      const source = block.source as Record<string, unknown> | undefined;
      if (source?.type === "text" && typeof source.data === "string")
        parts.push({ type: "text", text: source.data });
    }
  }
  if (parts.every((part) => part.type === "text")) return parts.map((part) => part.text).join("\n");
  return parts;
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return blocksText(content as WireBlock[]);
  return "";
}

/** The provider state a thinking block carries, when longrun made it (others mean nothing upstream). */
function thinkingState(block: WireBlock): ProviderState | null {
  if (block.type === "thinking") return decodeProviderState(str(block.signature));
  if (block.type === "redacted_thinking") return decodeProviderState(str(block.data));
  return null;
}

function assistantFact(blocks: readonly WireBlock[]): NewMessage & { role: "assistant" } {
  const text: string[] = [];
  const toolCalls: ToolCall[] = [];
  let state: ProviderState | undefined;
  for (const block of blocks) {
    if (block.type === "text") text.push(str(block.text) ?? "");
    else if (block.type === "tool_use") {
      const id = str(block.id);
      const name = str(block.name);
      if (!id || !name) throw new InvalidMessagesRequest("tool_use blocks need an id and a name");
      const args = JSON.stringify(block.input ?? {});
      toolCalls.push({ id, type: "function", function: { name, arguments: args } });
    } else {
      const decoded = thinkingState(block);
      if (decoded) state = { ...state, ...decoded };
    }
    // server_tool_use, web_search_tool_result…: answered by Anthropic's servers, no upstream form.
  }
  const joined = text.join("");
  return {
    role: "assistant",
    content: toolCalls.length > 0 && joined === "" ? null : joined,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(state ? { providerState: state } : {}),
  };
}

/** A user message: its tool results first (each one a tool fact, next to its call), then its own content. */
function userFacts(blocks: readonly WireBlock[]): NewMessage[] {
  const facts: NewMessage[] = [];
  const rest: WireBlock[] = [];
  for (const block of blocks) {
    if (block.type !== "tool_result") {
      rest.push(block);
      continue;
    }
    const id = str(block.tool_use_id);
    if (!id) throw new InvalidMessagesRequest("tool_result blocks need a tool_use_id");
    facts.push({
      role: "tool",
      content: toolResultText(block.content),
      toolCallId: id,
      ...(block.is_error === true ? { toolStatus: "error" as const } : {}),
    });
  }
  if (rest.length > 0) facts.push({ role: "user", content: userContent(rest) });
  return facts;
}

/**
 * Every tool_use is answered by a tool_result in the very next message, and every tool_result answers
 * a tool_use of the message before it — the rule the Messages API enforces. The last assistant message
 * may end in calls the client has not answered yet (nothing follows it).
 */
function checkAdjacency(facts: readonly NewMessage[]): void {
  let open = new Set<string>();
  for (const fact of facts) {
    if (fact.role === "tool") {
      if (!open.delete(fact.toolCallId ?? ""))
        throw new InvalidMessagesRequest(
          `unexpected tool_use_id found in tool_result blocks: ${fact.toolCallId}. Each tool_result block must have a corresponding tool_use block in the previous message.`,
        );
      continue;
    }
    if (open.size > 0)
      throw new InvalidMessagesRequest(
        `tool_use ids were found without tool_result blocks immediately after: ${[...open].join(", ")}. Each tool_use block must have a corresponding tool_result block in the next message.`,
      );
    open = new Set((fact.toolCalls ?? []).map((call) => call.id));
  }
}

/** Anthropic messages as facts: one assistant fact per assistant message, tool results as tool facts. */
export function messagesToFacts(
  messages: ReadonlyArray<{ role: "user" | "assistant" | "system"; content: WireContent }>,
): NewMessage[] {
  const facts: NewMessage[] = [];
  for (const message of messages) {
    const blocks: WireBlock[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    if (message.role === "assistant") facts.push(assistantFact(blocks));
    else if (message.role === "system") facts.push({ role: "system", content: blocksText(message.content) });
    else facts.push(...userFacts(blocks));
  }
  checkAdjacency(facts);
  return facts;
}
