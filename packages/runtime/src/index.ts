export {
  type Breaker,
  type BreakerOptions,
  type BreakerRecord,
  type BreakerSnapshot,
  type BreakerState,
  type BreakerStore,
  type CheckOptions,
  type CheckResult,
  closedRecord,
  createBreaker,
  createMemoryBreakerStore,
  createRedisBreakerStore,
  DEFAULT_BREAKER_PREFIX,
  type FailureResult,
  type RedisBreakerStoreOptions,
} from "./breaker/index.ts";
export * from "./engine/index.ts";
export * from "./gateway/index.ts";
export {
  type KnownModel,
  knownInputLimit,
  knownModel,
  type ResolvedProfile,
  resolveProfile,
  SIM_DEFAULT_MAX_INPUT_TOKENS,
} from "./profiles.ts";
export {
  abortableSleep,
  isContextOverflow,
  isInvalidEncryptedContent,
  isPermanentProviderError,
  isRetryableProviderError,
  type ProviderRetryOptions,
  retryAfterMs,
  withProviderRetry,
} from "./retry.ts";
export { createMessageCounter, type MessageCounter, OFF_THREAD_CHARS } from "./tokens/message-counter.ts";
export {
  type ApprovalPolicy,
  compileGlob,
  createApprovalPolicy,
  createToolRegistry,
  DEFAULT_APPROVAL_REQUIRED,
  DEFAULT_OUTPUT_LIMIT,
  denialResult,
  limitOutput,
  matchGlob,
  openWorkspace,
  type ResolvedPath,
  type ToolCallRequest,
  type ToolContext,
  type ToolDefinition,
  type ToolRegistry,
  type ToolRegistryOptions,
  type ToolResult,
  type Workspace,
} from "./tools/index.ts";
