import { z } from "zod";
import { Agent, AgentInherit, AgentState, Run, Thread } from "./agent.ts";
import { CompactionEvent, StageSavings } from "./compaction.ts";
import { ChatMessage, StoredMessage } from "./message.ts";
import { ModelProfile } from "./model-profile.ts";

/** POST /v1/threads */
export const CreateThreadBody = z.object({
  title: z.string().max(200).optional(),
  /** An existing folder inside one of LONGRUN_WORKSPACE_ROOTS; default: a new folder under the data dir. */
  workspace: z.string().max(4096).optional(),
  model: z.string().min(1).max(200).optional(),
  maxInputTokens: z.number().int().min(1024).max(10_000_000).optional(),
  simSteps: z.number().int().min(1).max(100_000).optional(),
  simScript: z.string().max(100).optional(),
  simReasoning: z.boolean().optional(),
  systemPrompt: z.string().max(100_000).optional(),
  /** Optional first task: posted as the first user message. */
  task: z.string().max(1_000_000).optional(),
  profile: ModelProfile.partial().optional(),
});
export type CreateThreadBody = z.infer<typeof CreateThreadBody>;

export const ThreadDetail = Thread.extend({
  agents: z.array(Agent),
  runs: z.array(Run),
});
export type ThreadDetail = z.infer<typeof ThreadDetail>;

export const ThreadList = z.object({ threads: z.array(Thread) });

/** POST /v1/threads/:id/messages */
export const PostMessageBody = z.object({
  content: z.string().min(1).max(1_000_000),
  /** Target agent; default the thread's root agent. */
  agentId: z.string().optional(),
});
export type PostMessageBody = z.infer<typeof PostMessageBody>;

export const PostMessageResult = z.object({
  runId: z.string(),
  messageId: z.string().nullable(),
  /** True when another run of this thread is active and this one waits behind it. */
  queued: z.boolean(),
  position: z.number().int().nonnegative(),
});
export type PostMessageResult = z.infer<typeof PostMessageResult>;

/** POST /v1/approvals/:callId */
export const ApprovalBody = z.object({
  decision: z.enum(["approve", "deny"]),
  reason: z.string().max(10_000).optional(),
});
export type ApprovalBody = z.infer<typeof ApprovalBody>;

/** POST /v1/agents/:id/compact */
export const CompactBody = z.object({ strategy: z.enum(["partial", "full"]).optional() }).default({});
export type CompactBody = z.infer<typeof CompactBody>;

export const SpawnAgentSpec = z.object({
  name: z.string().min(1).max(100),
  brief: z.string().min(1).max(100_000),
  inherit: AgentInherit.default("fresh"),
});
export type SpawnAgentSpec = z.infer<typeof SpawnAgentSpec>;

/** POST /v1/agents/:id/spawn */
export const SpawnBody = z.object({ agents: z.array(SpawnAgentSpec).min(1).max(16) });
export type SpawnBody = z.infer<typeof SpawnBody>;

export const RunResult = z.object({ run: Run });
export const MessagesPage = z.object({
  messages: z.array(StoredMessage),
  nextAfterSeq: z.number().nullable(),
});

/** GET /v1/agents/:id/context: the projection the model would get now. */
export const ContextView = z.object({
  agentId: z.string(),
  messages: z.array(ChatMessage),
  /** Per-message role in the projection, same order as `messages`. */
  marks: z.array(
    z.enum(["system", "prefix", "summary", "restored", "pinned", "raw", "repaired", "collapsed"]),
  ),
  tokens: z.number().int(),
  rawTokens: z.number().int(),
  maxInputTokens: z.number().int().nullable(),
  triggerTokens: z.number().int(),
  saved: StageSavings,
  needsCompaction: z.boolean(),
  compaction: CompactionEvent.nullable(),
  state: AgentState.nullable(),
  /**
   * A forked sub-agent's inherited prefix as rebuilt from its parent's log by id, even after the
   * agent's own compaction folded it into a summary (then it is no longer sent).
   */
  forkPrefix: z.array(ChatMessage).optional(),
});
export type ContextView = z.infer<typeof ContextView>;

export const ErrorCode = z.enum([
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "rate_limited",
  "internal",
  "unavailable",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** Every API error body: `{error: {code, message}}`. */
export const ErrorBody = z.object({
  error: z.object({ code: ErrorCode, message: z.string(), details: z.unknown().optional() }),
});
export type ErrorBody = z.infer<typeof ErrorBody>;
