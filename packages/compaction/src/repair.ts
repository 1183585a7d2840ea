import type { ChatMessage, ToolCall } from "@longrun/protocol";

/** Result of repairToolPairs: a list that satisfies I1, plus where each message came from. */
export interface RepairResult {
  messages: ChatMessage[];
  /** Per output message: index of its source in the input, or null for a synthetic result. */
  sourceIndex: (number | null)[];
  /** Calls that had no result and got an explicit cancelled one. */
  cancelled: number;
  /** Tool results dropped because no earlier call had their id. */
  orphansDropped: number;
  /** Tool results or calls dropped because their id was already answered or used. */
  duplicatesDropped: number;
}

/** Content of the synthetic result of a call that never returned (I2: never a success). */
export function cancelledResultText(call: ToolCall): string {
  return `[tool call cancelled] ${call.function.name} (call ${call.id}) was cancelled or interrupted before it returned a result; its outcome is unknown. Do not assume it succeeded.`;
}

/**
 * Restores tool-call adjacency without touching the facts: each call's first later result is
 * emitted right after its assistant message, in call order; missing results become explicit
 * cancelled results; orphan and duplicate results are dropped, as are repeated call ids.
 */
export function repairToolPairs(messages: readonly ChatMessage[]): RepairResult {
  const seenCalls = new Set<string>();
  const calls = new Map<number, ToolCall[]>();
  const resultOf = new Map<string, number>();
  let orphansDropped = 0;
  let duplicatesDropped = 0;
  messages.forEach((message, index) => {
    if (message.role === "assistant" && message.tool_calls && message.tool_calls.length > 0) {
      const unique: ToolCall[] = [];
      for (const call of message.tool_calls) {
        if (seenCalls.has(call.id)) duplicatesDropped++;
        else {
          seenCalls.add(call.id);
          unique.push(call);
        }
      }
      calls.set(index, unique);
    } else if (message.role === "tool") {
      const id = message.tool_call_id;
      if (id === undefined || !seenCalls.has(id)) orphansDropped++;
      else if (resultOf.has(id)) duplicatesDropped++;
      else resultOf.set(id, index);
    }
  });

  const out: ChatMessage[] = [];
  const sourceIndex: (number | null)[] = [];
  let cancelled = 0;
  messages.forEach((message, index) => {
    if (message.role === "tool") return;
    const unique = calls.get(index);
    if (unique === undefined) {
      out.push(message);
      sourceIndex.push(index);
      return;
    }
    const original = message.tool_calls ?? [];
    if (unique.length === 0) {
      // Every call was a repeat: keep the text if there is any, else the message says nothing.
      const { tool_calls: _dropped, ...rest } = message;
      if (rest.content === null || rest.content === "") return;
      out.push(rest);
      sourceIndex.push(index);
      return;
    }
    out.push(unique.length === original.length ? message : { ...message, tool_calls: unique });
    sourceIndex.push(index);
    for (const call of unique) {
      const resultIndex = resultOf.get(call.id);
      const result = resultIndex === undefined ? undefined : messages[resultIndex];
      if (resultIndex !== undefined && result) {
        out.push(result);
        sourceIndex.push(resultIndex);
      } else {
        out.push({ role: "tool", tool_call_id: call.id, content: cancelledResultText(call) });
        sourceIndex.push(null);
        cancelled++;
      }
    }
  });
  return { messages: out, sourceIndex, cancelled, orphansDropped, duplicatesDropped };
}
