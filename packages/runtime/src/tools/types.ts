import type { SpawnAgentSpec, TodoItem, ToolStatus } from "@longrun/protocol";
import type { z } from "zod";
import type { Workspace } from "./workspace.ts";

/** What a tool needs from the agent it runs for; the step engine supplies it. */
export interface ToolContext {
  /** The thread's workspace folder; every path a tool touches must stay inside it. */
  workspaceDir: string;
  /** Remember a file the agent read or wrote (workspace-relative), for restoration after compaction. */
  recordRead(path: string): Promise<void>;
  /**
   * Remember what a tool did to a file (workspace-relative): its bytes before (`null`: it did not
   * exist; `undefined`: not known) and after (`null`: deleted). Recorded as a content-addressed
   * snapshot with the call's result, so a fork can rebuild the workspace as of any fact.
   */
  recordChange(path: string, before: Uint8Array | null | undefined, after: Uint8Array | null): void;
  setTodos(todos: TodoItem[]): Promise<void>;
  setPlan(plan: string): Promise<void>;
  /** Start sub-agents; `parked` means the calling agent now waits for their reports. */
  spawnAgents(specs: SpawnAgentSpec[], callId: string): Promise<{ parked: true } | { reports: string }>;
}

/** The outcome of one tool call, as it becomes a tool result message. */
export interface ToolResult {
  status: ToolStatus;
  output: string;
  /** The agent waits (sub-agents running); the result arrives later. */
  parked?: boolean;
}

/** A tool call as the model requested it: arguments are the raw JSON string. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: string;
}

/** OpenAI Chat Completions tool definition. */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Everything a tool's `run` receives besides its validated arguments. */
export interface ToolEnv {
  context: ToolContext;
  workspace: Workspace;
  callId: string;
  signal: AbortSignal | undefined;
  outputLimit: number;
}

/** One tool: a name, a zod schema for its arguments, and what it does. */
export interface ToolSpec<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: Schema;
  // Method syntax keeps the parameter bivariant, so specs of different schemas share one array type.
  run(args: z.output<Schema>, env: ToolEnv): Promise<ToolResult>;
}

/** Identity helper that infers the argument type of `run` from the schema. */
export function defineTool<Schema extends z.ZodType>(spec: ToolSpec<Schema>): ToolSpec<Schema> {
  return spec;
}

/** What kind of tool failure: code reads the code, the model reads the message. */
export type ToolErrorCode =
  | "not_found"
  | "is_directory"
  | "not_directory"
  | "not_regular_file"
  | "binary_file"
  | "too_large"
  | "outside_workspace"
  | "changed_meanwhile"
  | "workspace_unavailable"
  | "invalid_argument"
  | "edit_mismatch"
  | "service_error";

/** A failure the model should see as the tool result text (status "error"), with a code for callers. */
export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ToolError";
  }

  /** True for a ToolError of that code (callers branch on codes, never on message text). */
  static hasCode(error: unknown, code: ToolErrorCode): error is ToolError {
    return error instanceof ToolError && error.code === code;
  }
}

/** Shorthand for a successful result. */
export function ok(output: string): ToolResult {
  return { status: "ok", output };
}
