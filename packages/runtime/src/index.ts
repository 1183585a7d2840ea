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
export {
  type ClientTurnInput,
  type ClientTurnResult,
  runClientTurn,
  type TurnSink,
} from "./client-turns/client-turn.ts";
export { ClientTurnError, type ClientTurnErrorCode } from "./client-turns/client-turn-error.ts";
export {
  type ClientTurnOptions,
  COMPACTION_HEADER,
  type LiveEventSource,
  MAX_INPUT_TOKENS_HEADER,
} from "./client-turns/client-turn-options.ts";
export { ConversationIndex } from "./client-turns/conversation-index.ts";
export { countClientTurnTokens } from "./client-turns/count-turn.ts";
export { PromptCacheLedger } from "./client-turns/prompt-cache.ts";
export { compactThroughQueue, type QueuedCompactionOutcome } from "./client-turns/queued-compaction.ts";
export { historyFilePath } from "./compaction/history-file.ts";
export { type CompactionOutcome, runCompaction } from "./compaction/run-compaction.ts";
export { type AgentContext, loadAgentContext } from "./context/agent-context.ts";
export { contextParts } from "./context/context-parts.ts";
export { buildForkPrefix } from "./context/fork-prefix.ts";
export { projectContext, restoredFilesOf } from "./context/projection.ts";
export { DEFAULT_SYSTEM_PROMPT } from "./context/system-prompt.ts";
export { threadCost } from "./context/thread-cost.ts";
export type { EventSink } from "./events/event-sink.ts";
export { createPersistingEventSink } from "./events/persisting-event-sink.ts";
export { createRequestRate, type RateRefusal, type RequestRate } from "./fair-share/request-rate.ts";
export { checkRunQuota } from "./fair-share/run-quota.ts";
export {
  createTarpit,
  TARPIT_MAX_HELD_PER_TENANT,
  TARPIT_MAX_HOLD_MS,
  type Tarpit,
} from "./fair-share/tarpit.ts";
export {
  DEFAULT_TENANT_LIMITS,
  limitsOf,
  TenantLimitOverrides,
  type TenantLimits,
  type TenantLimitsConfig,
} from "./fair-share/tenant-limits.ts";
export { createJobHandlers, type JobHandlersOptions } from "./jobs/job-handlers.ts";
export {
  type KnownModel,
  knownInputLimit,
  knownModel,
  type ResolvedProfile,
  resolveProfile,
  SIM_DEFAULT_MAX_INPUT_TOKENS,
} from "./profiles.ts";
export { Coordinator } from "./runs/coordinator.ts";
export { createThreadWithRoot, type ThreadWithRootInput } from "./runs/create-thread.ts";
export { type ForkedThread, type ForkPoint, forkThread } from "./runs/fork-thread.ts";
export { admitWithMultitask } from "./runs/multitask.ts";
export {
  createReconciler,
  type MaintenanceOptions,
  type ReconcileReport,
  type Reconciler,
  type ReconcilerOptions,
  startMaintenance,
} from "./runs/reconciler.ts";
export { RunControl } from "./runs/run-control.ts";
export type { RuntimeDeps } from "./runtime-deps.ts";
export type { RuntimeMetrics } from "./runtime-metrics.ts";
export { runAgentStep, type StepOutcome } from "./step/agent-step.ts";
export { callModel, callSummarizer } from "./step/model-call.ts";
export {
  abortableSleep,
  isContextOverflow,
  isInvalidEncryptedContent,
  isPermanentProviderError,
  isRetryableProviderError,
  type ProviderRetryOptions,
  retryAfterMs,
  withProviderRetry,
} from "./step/provider-retry.ts";
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
