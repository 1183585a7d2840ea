import type { ToolResult } from "./types.ts";

/** Tools that need a user's approval unless configured otherwise. */
export const DEFAULT_APPROVAL_REQUIRED: ReadonlySet<string> = new Set(["run_command"]);

/** Which tool calls must wait for a user's decision before they run. */
export interface ApprovalPolicy {
  needsApproval(toolName: string): boolean;
}

/** A policy from a set of tool names (default: run_command only). */
export function createApprovalPolicy(required: Iterable<string> = DEFAULT_APPROVAL_REQUIRED): ApprovalPolicy {
  const names = new Set(required);
  return { needsApproval: (toolName) => names.has(toolName) };
}

/** The tool result recorded when a user denies a call: an error the model can read and act on. */
export function denialResult(reason?: string): ToolResult {
  const why = reason?.trim() ? ` Reason: ${reason.trim()}` : "";
  return {
    status: "error",
    output: `The user denied this tool call; it did not run.${why} Do not retry it unchanged; adjust your approach.`,
  };
}
