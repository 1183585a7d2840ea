import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import type { ChatMessage, ToolCall } from "@longrun/protocol";

/** Key under which arguments that are not a JSON object survive the round trip. */
const RAW_ARGUMENTS = "__raw_arguments";

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Not JSON: keep the raw text so the round trip is lossless.
  }
  return { [RAW_ARGUMENTS]: text };
}

function stringifyArguments(args: Record<string, unknown>): string {
  const raw = args[RAW_ARGUMENTS];
  return typeof raw === "string" && Object.keys(args).length === 1 ? raw : JSON.stringify(args);
}

function textOf(content: BaseMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .map((block) => {
      if (typeof block === "string") return block;
      return block.type === "text" && typeof block.text === "string" ? block.text : "";
    })
    .join("");
}

/**
 * ChatMessage → LangChain message. `id` is the message's index in its
 * transcript, so token counts can be cached per message (LangChain copies
 * messages but keeps their ids).
 */
export function toLangChain(message: ChatMessage, id: string): BaseMessage {
  const content = typeof message.content === "string" ? message.content : "";
  switch (message.role) {
    case "system":
      return new SystemMessage({ content, id });
    case "user":
      return new HumanMessage({ content, id, ...(message.name ? { name: message.name } : {}) });
    case "assistant":
      return new AIMessage({
        content,
        id,
        tool_calls: (message.tool_calls ?? []).map((call) => ({
          id: call.id,
          name: call.function.name,
          args: parseArguments(call.function.arguments),
          type: "tool_call" as const,
        })),
      });
    case "tool":
      return new ToolMessage({ content, id, tool_call_id: message.tool_call_id ?? "" });
  }
}

/** LangChain message → ChatMessage (the wire shape the checkers read). */
export function fromLangChain(message: BaseMessage): ChatMessage {
  const content = textOf(message.content);
  if (ToolMessage.isInstance(message)) {
    return { role: "tool", content, tool_call_id: message.tool_call_id };
  }
  if (AIMessage.isInstance(message)) {
    const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => ({
      id: call.id ?? "",
      type: "function",
      function: { name: call.name, arguments: stringifyArguments(call.args) },
    }));
    return toolCalls.length > 0
      ? { role: "assistant", content, tool_calls: toolCalls }
      : { role: "assistant", content };
  }
  if (SystemMessage.isInstance(message)) return { role: "system", content };
  return { role: "user", content, ...(message.name ? { name: message.name } : {}) };
}
