import type { ChatMessage } from "@longrun/protocol";

/** I1: returns a description of the first violation, or null. */
export function toolPairViolation(messages: readonly ChatMessage[]): string | null {
  const calls = new Set<string>();
  const results = new Set<string>();
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as ChatMessage;
    if (message.role === "tool") return `tool message at ${index} without its call right before it`;
    const toolCalls = message.tool_calls ?? [];
    if (message.role !== "assistant" && toolCalls.length > 0)
      return `non-assistant message with tool_calls at ${index}`;
    index++;
    for (const call of toolCalls) {
      if (calls.has(call.id)) return `duplicate call id ${call.id}`;
      calls.add(call.id);
    }
    const expected = new Set(toolCalls.map((call) => call.id));
    for (let offset = 0; offset < toolCalls.length; offset++) {
      const result = messages[index];
      if (result?.role !== "tool") return `call at ${index - 1 - offset} missing result ${offset}`;
      const id = result.tool_call_id ?? "";
      if (!expected.has(id)) return `result ${id} at ${index} does not answer the call before it`;
      if (results.has(id)) return `duplicate result ${id}`;
      results.add(id);
      expected.delete(id);
      index++;
    }
  }
  return null;
}
