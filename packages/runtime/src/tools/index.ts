export {
  type ApprovalPolicy,
  createApprovalPolicy,
  DEFAULT_APPROVAL_REQUIRED,
  denialResult,
} from "./approval.ts";
export { compileGlob, matchGlob } from "./glob-pattern.ts";
export { DEFAULT_OUTPUT_LIMIT, limitOutput, outputLimitFor } from "./limit-output.ts";
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from "./registry.ts";
export type { ToolCallRequest, ToolContext, ToolDefinition, ToolResult } from "./types.ts";
export { openWorkspace, type ResolvedPath, type Workspace } from "./workspace.ts";
