import { z } from "zod";
import { toolSpan } from "../tracing/tool-span.ts";
import { spawnAgentsTool, todoWriteTool, updatePlanTool } from "./agent-state-tools.ts";
import { type ApprovalPolicy, createApprovalPolicy, denialResult } from "./approval.ts";
import { editFileTool } from "./edit-file.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { DEFAULT_OUTPUT_LIMIT, limitOutput } from "./limit-output.ts";
import { listDirTool } from "./list-dir.ts";
import { readFileTool } from "./read-file.ts";
import { runCommandTool } from "./run-command.ts";
import {
  type ToolCallRequest,
  type ToolContext,
  type ToolDefinition,
  ToolError,
  type ToolResult,
  type ToolSpec,
} from "./types.ts";
import { createWebSearchTool } from "./web-search.ts";
import { openWorkspace } from "./workspace.ts";
import { writeFileTool } from "./write-file.ts";

export interface ToolRegistryOptions {
  /** URL taking POST {query}; without it there is no web_search tool. */
  searchEndpoint?: string;
  /** Tools that need approval; default run_command. */
  approvalRequired?: Iterable<string>;
  /** Cap on a tool result in characters; default 16,000. */
  outputLimit?: number;
}

/** The tools an agent can call, their definitions for the model, and how to run one. */
export interface ToolRegistry {
  /** OpenAI Chat Completions `tools` entries. */
  definitions(): ToolDefinition[];
  names(): string[];
  has(name: string): boolean;
  needsApproval(name: string): boolean;
  /** Text of the error result recorded for a call the user denied (its status is "error"). */
  denialResult(reason?: string): string;
  /** Validate and run one call; never throws: failures become error results the model can act on. */
  execute(call: ToolCallRequest, context: ToolContext, signal?: AbortSignal): Promise<ToolResult>;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `- ${issue.path.length > 0 ? issue.path.join(".") : "(arguments)"}: ${issue.message}`)
    .join("\n");
}

function parametersOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  });
  return parameters;
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Build the tool registry: workspace tools, agent-state tools, and web_search when configured. */
export function createToolRegistry(options: ToolRegistryOptions = {}): ToolRegistry {
  const outputLimit = options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
  const policy: ApprovalPolicy = createApprovalPolicy(options.approvalRequired);
  const specs: ToolSpec[] = [
    readFileTool,
    listDirTool,
    globTool,
    grepTool,
    writeFileTool,
    editFileTool,
    runCommandTool,
    todoWriteTool,
    updatePlanTool,
    spawnAgentsTool,
  ];
  if (options.searchEndpoint) specs.push(createWebSearchTool(options.searchEndpoint));
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const definitions: ToolDefinition[] = specs.map((spec) => ({
    type: "function",
    function: { name: spec.name, description: spec.description, parameters: parametersOf(spec.schema) },
  }));

  function parseArguments(spec: ToolSpec, raw: string): { args: unknown } | { error: string } {
    let json: unknown;
    try {
      // Some models send "" for a call without arguments.
      json = raw.trim() === "" ? {} : JSON.parse(raw);
    } catch (error) {
      return {
        error: `Invalid arguments for ${spec.name}: not valid JSON (${errorMessage(error)}). Send one JSON object.`,
      };
    }
    const parsed = spec.schema.safeParse(json);
    if (!parsed.success) {
      return {
        error: `Invalid arguments for ${spec.name}:\n${describeIssues(parsed.error)}\nFix these fields and call ${spec.name} again.`,
      };
    }
    return { args: parsed.data };
  }

  async function execute(
    call: ToolCallRequest,
    context: ToolContext,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const spec = byName.get(call.name);
    if (!spec) {
      return {
        status: "error",
        output: `Unknown tool "${call.name}". Available tools: ${[...byName.keys()].join(", ")}.`,
      };
    }
    if (signal?.aborted) return { status: "cancelled", output: "Cancelled before it started." };
    const parsed = parseArguments(spec, call.arguments);
    if ("error" in parsed) return { status: "error", output: parsed.error };
    try {
      const workspace = await openWorkspace(context.workspaceDir);
      const result = await spec.run(parsed.args, {
        context,
        workspace,
        callId: call.id,
        signal,
        outputLimit,
      });
      return { ...result, output: limitOutput(result.output, outputLimit) };
    } catch (error) {
      if (error instanceof ToolError)
        return { status: "error", output: limitOutput(error.message, outputLimit) };
      if (signal?.aborted) return { status: "cancelled", output: `${call.name} was cancelled.` };
      return {
        status: "error",
        output: limitOutput(`${call.name} failed: ${errorMessage(error)}`, outputLimit),
      };
    }
  }

  return {
    definitions: () => definitions,
    names: () => [...byName.keys()],
    has: (name) => byName.has(name),
    needsApproval: (name) => policy.needsApproval(name),
    denialResult: (reason) => denialResult(reason).output,
    execute: (call, context, signal) => toolSpan(call, () => execute(call, context, signal)),
  };
}
