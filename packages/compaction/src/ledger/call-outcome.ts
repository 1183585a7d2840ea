import type { ChatMessage, ToolCall, ToolStatus } from "@longrun/protocol";
import { callEffects } from "./call-effects.ts";
import { type ResultOutcome, resultOutcome } from "./result-outcome.ts";

/**
 * A tool result read as the ledger reads it: in the scope of the call that asked for it (a command's
 * output, a read-only command's, a tool's answer). Without the call, as a tool's answer.
 */
export function callOutcome(
  call: ToolCall | undefined,
  text: string,
  status: ToolStatus | undefined,
): ResultOutcome {
  return call === undefined
    ? resultOutcome(text, status)
    : resultOutcome(text, status, callEffects(call, text));
}

/** The call a tool message answers, looked up among the messages before it. */
export function callOf(messages: readonly { message: ChatMessage }[], index: number): ToolCall | undefined {
  const id = messages[index]?.message.tool_call_id;
  if (id === undefined) return undefined;
  for (let at = index - 1; at >= 0; at--) {
    const found = messages[at]?.message.tool_calls?.find((call) => call.id === id);
    if (found) return found;
  }
  return undefined;
}
