import { type ChatMessage, contentText } from "@longrun/protocol";

/** One way a message list breaks I1. */
export interface PairingViolation {
  index: number;
  kind: "missing_result" | "orphan_result" | "duplicate_result" | "duplicate_call";
  callId: string;
}

/**
 * I1 over a Chat Completions list: every assistant message with tool calls is
 * immediately followed by exactly one tool message per call id (any order
 * inside the block); no tool message without its call; no duplicates.
 */
export function pairingViolations(messages: readonly ChatMessage[]): PairingViolation[] {
  const violations: PairingViolation[] = [];
  const seenCalls = new Set<string>();
  let index = 0;
  while (index < messages.length) {
    const message = messages[index] as ChatMessage;
    if (message.role === "tool") {
      // A tool message outside the block right after its call has no call to answer.
      violations.push({ index, kind: "orphan_result", callId: message.tool_call_id ?? "" });
      index++;
      continue;
    }
    index++;
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) continue;
    const open = new Set<string>();
    for (const call of calls) {
      if (seenCalls.has(call.id) || open.has(call.id)) {
        violations.push({ index: index - 1, kind: "duplicate_call", callId: call.id });
      }
      open.add(call.id);
      seenCalls.add(call.id);
    }
    const answered = new Set<string>();
    while (index < messages.length && (messages[index] as ChatMessage).role === "tool") {
      const callId = (messages[index] as ChatMessage).tool_call_id ?? "";
      if (answered.has(callId)) violations.push({ index, kind: "duplicate_result", callId });
      else if (!open.has(callId)) violations.push({ index, kind: "orphan_result", callId });
      else answered.add(callId);
      index++;
    }
    for (const callId of open) {
      if (!answered.has(callId)) violations.push({ index, kind: "missing_result", callId });
    }
  }
  return violations;
}

/** True when the list satisfies I1. */
export function satisfiesI1(messages: readonly ChatMessage[]): boolean {
  return pairingViolations(messages).length === 0;
}

/** The latest user message of the input appears verbatim (role user, same content) in the output. */
export function keepsLatestUser(input: readonly ChatMessage[], output: readonly ChatMessage[]): boolean {
  const latest = input.findLast((message) => message.role === "user");
  if (latest === undefined) return true;
  const text = contentText(latest.content);
  return output.some((message) => message.role === "user" && contentText(message.content) === text);
}

/** The last `count` tool results of the input appear verbatim (same call id, same content) in the output. */
export function keepsLastToolResults(
  input: readonly ChatMessage[],
  output: readonly ChatMessage[],
  count = 3,
): boolean {
  const results = input.filter((message) => message.role === "tool").slice(-count);
  return results.every((result) => {
    const text = contentText(result.content);
    return output.some(
      (message) =>
        message.role === "tool" &&
        message.tool_call_id === result.tool_call_id &&
        contentText(message.content) === text,
    );
  });
}

/** Counts the tokens of a message list. */
export type CountTokens = (messages: readonly ChatMessage[]) => number;

/** The output fits the budget under the given counter. */
export function fits(output: readonly ChatMessage[], budget: number, countTokens: CountTokens): boolean {
  return countTokens(output) <= budget;
}
