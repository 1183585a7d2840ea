import type { ChatMessage, ToolCall } from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import type { ModelMessage } from "ai";

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** ChatMessage → AI SDK ModelMessage (one tool message per tool result, as in the transcript). */
export function toModelMessage(message: ChatMessage): ModelMessage {
  const text = contentText(message.content);
  switch (message.role) {
    case "system":
      return { role: "system", content: text };
    case "user":
      return { role: "user", content: text };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { role: "assistant", content: text };
      return {
        role: "assistant",
        content: [
          ...(text === "" ? [] : [{ type: "text" as const, text }]),
          ...calls.map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.function.name,
            input: parseInput(call.function.arguments),
          })),
        ],
      };
    }
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.tool_call_id ?? "",
            toolName: message.name ?? "tool",
            output: { type: "text", value: text },
          },
        ],
      };
  }
}

/** AI SDK ModelMessage → ChatMessage list (a tool message with several results becomes several). */
export function fromModelMessage(message: ModelMessage): ChatMessage[] {
  if (message.role === "system") return [{ role: "system", content: message.content }];
  if (message.role === "user") {
    const content =
      typeof message.content === "string"
        ? message.content
        : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    return [{ role: "user", content }];
  }
  if (message.role === "assistant") {
    if (typeof message.content === "string") return [{ role: "assistant", content: message.content }];
    let text = "";
    const toolCalls: ToolCall[] = [];
    for (const part of message.content) {
      if (part.type === "text") text += part.text;
      if (part.type === "tool-call") {
        const args = typeof part.input === "string" ? part.input : JSON.stringify(part.input);
        toolCalls.push({
          id: part.toolCallId,
          type: "function",
          function: { name: part.toolName, arguments: args },
        });
      }
    }
    return [
      toolCalls.length > 0
        ? { role: "assistant", content: text, tool_calls: toolCalls }
        : { role: "assistant", content: text },
    ];
  }
  const results: ChatMessage[] = [];
  for (const part of message.content) {
    if (part.type !== "tool-result") continue;
    const value = part.output.type === "text" ? part.output.value : JSON.stringify(part.output);
    results.push({ role: "tool", content: value, tool_call_id: part.toolCallId });
  }
  return results;
}
