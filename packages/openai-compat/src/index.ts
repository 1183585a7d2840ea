export {
  type Answer,
  type AnswerEvent,
  createAnswerReader,
  replayAnswer,
  type UpstreamChunk,
} from "./answer.ts";
export { messagesErrorBody } from "./anthropic/messages-errors.ts";
export { InvalidMessagesRequest } from "./anthropic/messages-facts.ts";
export { createMessagesStreamEncoder } from "./anthropic/messages-output.ts";
export { CountTokensRequestBody, MessagesRequestBody } from "./anthropic/messages-request.ts";
export type { AppliedContextEdit, PromptCacheFigures } from "./anthropic/messages-usage.ts";
export { parseMessagesRequest } from "./anthropic/parse-messages-request.ts";
export { type ApiErrorBody, apiErrorBody, CONTEXT_EXHAUSTED, contextExhaustedBody } from "./api-errors.ts";
export { type ChatAnswerIdentity, chatCompletionBody, createChatStreamEncoder } from "./chat-output.ts";
export { type Checkpoint, checkpointIn, checkpointMarker, splitAtCheckpoint } from "./checkpoint.ts";
export {
  type ClientCompaction,
  CODEX_COMPACTION_PROMPT,
  type CompactingClient,
  detectClientCompaction,
  OPENCODE_COMPACTION_PROMPT,
} from "./client-compaction.ts";
export type { ClientApi, ClientTurn, ToolRoute, UpstreamTool } from "./client-turn.ts";
export { compactionBody } from "./compact-output.ts";
export { textOf } from "./content.ts";
export {
  agentConversationKey,
  branchKey,
  CONVERSATION_HEADER,
  type ConversationKey,
  conversationKey,
  derivedThreadId,
  firstUserText,
  type HeaderReader,
  type KeySource,
  sessionKey,
} from "./conversation-key.ts";
export { decodeProviderState, encodeProviderState } from "./encrypted-state.ts";
export { fingerprint } from "./fingerprint.ts";
export { type HistoryMatch, matchHistory } from "./match-history.ts";
export { type ModelEntry, modelsList } from "./models-list.ts";
export { ChatRequestBody, parseChatRequest } from "./parse-chat-request.ts";
export { namespacedName, parseResponsesRequest, ResponsesRequestBody } from "./parse-responses-request.ts";
export {
  createResponsesStreamEncoder,
  type ResponsesAnswerIdentity,
  responseBody,
} from "./responses-output.ts";
export { upstreamRequest } from "./upstream-request.ts";
export {
  type ChatUsage,
  type ResponsesUsage,
  usageFromChat,
  usageToChat,
  usageToResponses,
} from "./usage.ts";
