import type { ToolCall, ToolStatus } from "@longrun/protocol";
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
