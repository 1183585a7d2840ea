import type { StoredMessage, ToolCall } from "@longrun/protocol";

/** The latest assistant message with tool calls, and those of its calls that have no result yet. */
export function pendingToolCalls(
  facts: StoredMessage[],
): { message: StoredMessage; calls: ToolCall[]; answered: Set<string> } | null {
  for (let index = facts.length - 1; index >= 0; index--) {
    const message = facts[index];
    if (!message) continue;
    if (message.role === "user") return null;
    if (message.role !== "assistant") continue;
    if (!message.toolCalls || message.toolCalls.length === 0) return null;
    const answered = new Set<string>();
    for (const later of facts.slice(index + 1)) {
      if (later.role === "tool" && later.toolCallId) answered.add(later.toolCallId);
    }
    const calls = message.toolCalls.filter((call) => !answered.has(call.id));
    return calls.length > 0 ? { message, calls, answered } : null;
  }
  return null;
}

/** The text of the agent's final answer when its log ends with one. */
export function finalAnswer(facts: StoredMessage[]): string | null {
  const last = facts.at(-1);
  if (last?.role !== "assistant" || (last.toolCalls?.length ?? 0) > 0) return null;
  return typeof last.content === "string" ? last.content : "";
}
