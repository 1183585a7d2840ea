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
  CompactionEvent,
  CompactionStrategy,
  CompactionTrigger,
  RestoredItem,
  StageSavings,
} from "./compaction.ts";
export { ControlMessage } from "./control.ts";
export { defineEvent, type EventDefinition } from "./define-event.ts";
export { LongrunError, statusOf } from "./errors.ts";
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
  ModelProfile,
  type ModelProfileInput,
  PROFILE_DEFAULTS,
  TokenizerFamily,
} from "./model-profile.ts";
export { HistoryView, OpsView } from "./ops.ts";
export {
  ApprovalBody,
  CompactBody,
  ContextView,
  CreateThreadBody,
  ErrorBody,
  ErrorCode,
  MessagesPage,
  PostMessageBody,
  PostMessageResult,
  RunResult,
  SpawnAgentSpec,
  SpawnBody,
  ThreadDetail,
  ThreadList,
} from "./rest.ts";
