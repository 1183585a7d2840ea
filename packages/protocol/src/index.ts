export {
  Agent,
  AgentInherit,
  AgentState,
  AgentStatus,
  Approval,
  PendingApproval,
  Run,
  RunKind,
  RunStatus,
  Thread,
  ThreadStatus,
  TodoItem,
} from "./agent.ts";
export {
  ApprovalRule,
  ApprovalRuleList,
  ApprovalRuleQuery,
  ApprovalRuleScope,
  CreateApprovalRuleBody,
} from "./approval-rules.ts";
export { type Backoff, backoffDelay } from "./backoff.ts";
export {
  type BusChannel,
  type BusChannels,
  BusEvent,
  type BusMessage,
  type BusMessageInput,
  busChannels,
  type ChannelSchemas,
} from "./bus-channels.ts";
export {
  CallCost,
  CompactionEvent,
  CompactionShrink,
  CompactionStrategy,
  CompactionTrigger,
  Ledger,
  LedgerFileAction,
  LedgerOutcome,
  RestoredItem,
  StageSavings,
} from "./compaction.ts";
export { ControlMessage } from "./control.ts";
export { defineEvent, type EventDefinition } from "./define-event.ts";
export { codeOfStatus, LongrunError, statusOf } from "./errors.ts";
export {
  type EventData,
  type EventOf,
  type EventType,
  eventDefinitions,
  eventTypeMatches,
  eventTypes,
  LongrunEvent,
  type NewEvent,
} from "./events.ts";
export {
  AckFrame,
  ClientAckFrame,
  ClientFrame,
  ClosingFrame,
  Command,
  CommandFrame,
  ErrorFrame,
  EventFrame,
  HeartbeatFrame,
  PingFrame,
  PongFrame,
  ResyncFrame,
  ServerFrame,
  SubscribedFrame,
  SubscribeFrame,
  UnsubscribeFrame,
} from "./frames.ts";
export { isLeaseLost, leaseLost } from "./lease-lost.ts";
export { errorFields, type LogFields, type Logger, silentLogger } from "./logger.ts";
export {
  ChatMessage,
  ContentPart,
  contentText,
  MessageContent,
  NewMessage,
  ProviderState,
  ReasoningDetail,
  Role,
  StoredMessage,
  ToolCall,
  ToolStatus,
  Usage,
} from "./message.ts";
export {
  GatewayProfile,
  ModelInfo,
  ModelList,
  ModelProfile,
  type ModelProfileInput,
  PROFILE_DEFAULTS,
  PROFILE_LIMITS,
  TokenizerFamily,
  UpstreamApi,
} from "./model-profile.ts";
export { Health, HistoryView, OpsView, Readiness } from "./ops.ts";
export {
  ApprovalBody,
  ApprovalResult,
  CompactBody,
  CompactResult,
  ContextPart,
  ContextView,
  CreateThreadBody,
  ErrorBody,
  ErrorCode,
  EventsPage,
  EventsQuery,
  ForkThreadBody,
  HistoryQuery,
  Id,
  MessagesPage,
  MessagesQuery,
  Multitask,
  PAGE_LIMITS,
  PostMessageBody,
  PostMessageResult,
  RunResult,
  SpawnAgentSpec,
  SpawnBody,
  SpawnResult,
  ThreadDetail,
  ThreadList,
  ThreadListItem,
  ThreadListQuery,
  ThreadProfileBody,
} from "./rest.ts";
export { ThreadCost } from "./thread-cost.ts";
export { ApiKey, ApiKeyList, RevokedApiKey } from "./tokens.ts";
export { TraceCarrier } from "./trace-carrier.ts";
export {
  AgentActivity,
  ApprovalInbox,
  ApprovalInboxQuery,
  CompactionCoverage,
  CompactionList,
  CompactionListQuery,
  ThreadSnapshot,
} from "./watch.ts";
