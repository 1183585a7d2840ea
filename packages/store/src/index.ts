export { type AgentStatePatch, type AgentStateRepository, emptyAgentState } from "./agent-state.ts";
export type { AgentProbe, AgentRecord, AgentRepository, CreateAgentInput } from "./agents.ts";
export type { ApiKeyRecord, ApiKeyRepository } from "./api-keys.ts";
export type { ApprovalRuleRepository, NewApprovalRule } from "./approval-rules.ts";
export type { ApprovalRepository } from "./approvals.ts";
export { isRetryableError } from "./busy-retry.ts";
export type { CompactionRepository, NewCompaction } from "./compactions.ts";
export type { Database } from "./connection.ts";
export { estimateTokens, type Transaction } from "./context.ts";
export type { EventRepository } from "./events.ts";
export type {
  FileChange,
  FileChangesInput,
  FileContent,
  FileSnapshot,
  FileSnapshotRepository,
} from "./file-snapshots.ts";
export { idTime, newId } from "./ids.ts";
export type { AppendOptions, Boundary, MessageInput, MessageRepository } from "./messages.ts";
export { MIGRATIONS_FOLDER } from "./migrate.ts";
export { openStore, type Store, type StoreOptions } from "./open-store.ts";
export type { PreparedSummaryRepository, PreparedSummaryRow } from "./prepared-summaries.ts";
export {
  ACTIVE_RUN_STATUSES,
  type CreateRunInput,
  type RunPatch,
  type RunRecord,
  type RunRepository,
} from "./runs.ts";
export * as schema from "./schema.ts";
export type { CreateThreadInput, ThreadPatch, ThreadRepository } from "./threads.ts";
export type { ToolRunRecord, ToolRunRepository } from "./tool-runs.ts";
export type { ApprovalRequest, DecideResult, UnitOfWork } from "./unit-of-work.ts";
