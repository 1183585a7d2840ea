import { z } from "zod";
import { Agent, AgentInherit, AgentState, Run, Thread } from "./agent.ts";
import { ApprovalRule, ApprovalRuleChoice } from "./approval-rules.ts";
import { CompactionEvent, StageSavings } from "./compaction.ts";
import { LongrunEvent } from "./events.ts";
import { ChatMessage, StoredMessage } from "./message.ts";
import { PROFILE_LIMITS, TokenizerFamily, UpstreamApi } from "./model-profile.ts";

/**
 * Text stored in a plain column (titles, agent names, briefs): SQLite text ends at a NUL, so a NUL
 * would be stored and then cut on read. It is refused instead.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the NUL is exactly what this pattern refuses.
const ColumnText = z.string().regex(/^[^\u0000]*$/, "must not contain NUL characters");

/**
 * A message, task or brief for the model: a NUL is refused like in a title, so what a client posts is
 * what every reader (a column, a provider, a terminal) gets back whole. `includes`, not a regex: one
 * pass over up to a million characters.
 */
const MessageText = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .refine((text) => !text.includes("\u0000"), "must not contain NUL characters");

/** An id in a path or a body: ids are short, printable, time-sortable strings. */
export const Id = z.string().min(1).max(200);

const ModelName = z.string().min(1).max(200);
const MaxInputTokens = z
  .number()
  .int()
  .min(PROFILE_LIMITS.maxInputTokens.min)
  .max(PROFILE_LIMITS.maxInputTokens.max);

/**
 * A new thread's model profile as a client may give it: no defaults here (the server fills them from
 * what it knows about the model), every number bounded.
 */
export const ThreadProfileBody = z
  .object({
    model: ModelName.optional(),
    maxInputTokens: MaxInputTokens.optional(),
    maxOutputTokens: z.number().int().min(1).max(1_000_000).optional(),
    tokenizer: TokenizerFamily.optional(),
    summarizerModel: ModelName.optional(),
    /** Share of the window at which compaction starts. */
    triggerRatio: z
      .number()
      .min(PROFILE_LIMITS.triggerRatio.min)
      .max(PROFILE_LIMITS.triggerRatio.max)
      .optional(),
    /** Share of the window kept verbatim by a partial compaction. */
    keepRatio: z.number().min(PROFILE_LIMITS.keepRatio.min).max(PROFILE_LIMITS.keepRatio.max).optional(),
    /** Share of the trigger at which the older prefix is summarized in the background (0: never). */
    backgroundRatio: z.number().min(0).lt(1).optional(),
    fallbackTriggerTokens: MaxInputTokens.optional(),
    fallbackKeepMessages: z.number().int().min(1).max(1000).optional(),
    idleGapMs: z
      .number()
      .int()
      .min(0)
      .max(30 * 24 * 60 * 60 * 1000)
      .optional(),
    microcompactKeep: z.number().int().min(0).max(1000).optional(),
    /** A model call without a first byte of its answer after this long fails its step (default 60 s). */
    modelFirstByteTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(60 * 60_000)
      .optional(),
    /** A model call or summary unfinished after this long fails likewise (default 10 min). */
    modelTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(6 * 60 * 60_000)
      .optional(),
    /** Wire format of the agents' model calls (default: the model's, as GET /v1/models lists it). */
    upstreamApi: UpstreamApi.optional(),
    /** Anthropic Messages: extended thinking with this budget. */
    thinkingBudgetTokens: z.number().int().min(1024).max(1_000_000).optional(),
  })
  .meta({ id: "ThreadProfileBody" });
export type ThreadProfileBody = z.infer<typeof ThreadProfileBody>;

/** POST /v1/threads */
export const CreateThreadBody = z
  .object({
    title: ColumnText.max(200).optional(),
    /** An existing folder inside one of LONGRUN_WORKSPACE_ROOTS; default: a new folder under the data dir. */
    workspace: z.string().min(1).max(4096).optional(),
    /** One of `GET /v1/models`; default the server's default model. */
    model: ModelName.optional(),
    maxInputTokens: MaxInputTokens.optional(),
    simSteps: z.number().int().min(1).max(100_000).optional(),
    /** Sim model only: one of the model's `longrun.simScripts`. */
    simScript: z.string().min(1).max(100).optional(),
    simReasoning: z.boolean().optional(),
    systemPrompt: z.string().max(100_000).optional(),
    /** Optional first task: posted as the first user message (capped like any message). */
    task: MessageText(0, 1_000_000).optional(),
    profile: ThreadProfileBody.optional(),
  })
  .meta({ id: "CreateThreadBody" });
export type CreateThreadBody = z.infer<typeof CreateThreadBody>;

export const ThreadDetail = Thread.extend({
  agents: z.array(Agent),
  runs: z.array(Run),
}).meta({ id: "ThreadDetail" });
export type ThreadDetail = z.infer<typeof ThreadDetail>;

/** A thread as listed, with what needs a person's attention (absent from older servers: 0). */
export const ThreadListItem = Thread.extend({
  /** Tool calls of its agents waiting for a decision. */
  pendingApprovals: z.number().int().nonnegative().default(0),
  /** Runs the reconciler found with nothing moving them (see `run.stuck`). */
  stuckRuns: z.number().int().nonnegative().default(0),
}).meta({ id: "ThreadListItem" });
export type ThreadListItem = z.infer<typeof ThreadListItem>;

export const ThreadList = z.object({ threads: z.array(ThreadListItem) }).meta({ id: "ThreadList" });
export type ThreadList = z.infer<typeof ThreadList>;

/** How many items a page may ask for and gets by default; pages are also cut by bytes. */
export const PAGE_LIMITS = {
  threads: { default: 100, max: 1000 },
  events: { default: 1000, max: 10_000 },
  messages: { default: 500, max: 5000 },
  history: { default: 200, max: 5000 },
} as const;

const pageLimit = (max: number) => z.coerce.number<number>().int().min(1).max(max);

/** GET /v1/threads?limit= (newest first). */
export const ThreadListQuery = z.object({ limit: pageLimit(PAGE_LIMITS.threads.max).optional() });
export type ThreadListQuery = z.infer<typeof ThreadListQuery>;

/** GET /v1/threads/:id/events?since=&limit= */
export const EventsQuery = z.object({
  /** Events with a seq above this one (default 0: from the start; -1, the WebSocket's "none seen", too). */
  since: z.coerce.number<number>().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: pageLimit(PAGE_LIMITS.events.max).optional(),
  /**
   * Only these event types, comma-separated (`run.*` for a family), like a WebSocket subscription's
   * `types`: a client filling in history reads only what it draws.
   */
  types: z
    .string()
    .max(2000)
    .regex(
      /^[a-z]+\.([a-z]+|\*)(,[a-z]+\.([a-z]+|\*))*$/,
      "comma-separated event types, e.g. run.*,context.measured",
    )
    .meta({ examples: ["run.*,context.measured"] })
    .optional(),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

/** A page of a thread's events; `nextSince` is set when more may follow (count or byte bound hit). */
export const EventsPage = z
  .object({ events: z.array(LongrunEvent), nextSince: z.number().int().nullable() })
  .meta({ id: "EventsPage" });
export type EventsPage = z.infer<typeof EventsPage>;

/** GET /v1/agents/:id/messages?afterSeq=&limit= */
export const MessagesQuery = z.object({
  /** Facts with a seq above this one (default -1: from the first, seq 0). */
  afterSeq: z.coerce.number<number>().int().min(-1).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: pageLimit(PAGE_LIMITS.messages.max).optional(),
});
export type MessagesQuery = z.infer<typeof MessagesQuery>;

export const MessagesPage = z
  .object({
    messages: z.array(StoredMessage),
    /** Set when more may follow (count or byte bound hit): pass it as `afterSeq`. */
    nextAfterSeq: z.number().int().nullable(),
  })
  .meta({ id: "MessagesPage" });
export type MessagesPage = z.infer<typeof MessagesPage>;

/** GET /v1/agents/:id/history?offset=&limit= (lines of the history file). */
export const HistoryQuery = z.object({
  offset: z.coerce.number<number>().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  limit: pageLimit(PAGE_LIMITS.history.max).optional(),
});
export type HistoryQuery = z.infer<typeof HistoryQuery>;

/** POST /v1/threads/:id/messages */
/** What a message posted while a run is active does (POST /v1/threads/{id}/messages). */
export const Multitask = z.enum(["enqueue", "reject", "interrupt", "rollback"]);
export type Multitask = z.infer<typeof Multitask>;

export const PostMessageBody = z
  .object({
    content: MessageText(1, 1_000_000),
    /**
     * While a run of the thread is active: `enqueue` (default) waits behind it, `reject` is a 409,
     * `interrupt` cancels it and runs this message, `rollback` cancels it and rewinds the thread to
     * before its input (its facts stay in the source, which points to the new fork).
     */
    multitask: Multitask.optional(),
    /** Target agent; default the thread's root agent. */
    agentId: Id.optional(),
  })
  .meta({ id: "PostMessageBody" });
export type PostMessageBody = z.infer<typeof PostMessageBody>;

/** `POST /v1/threads/{id}/fork` and `/rewind`: exactly one point of the source's root agent. */
const ForkTitle = ColumnText.max(200).optional();
export const ForkThreadBody = z
  .union([
    /** Fork after this message of the root agent (it is the fork's last inherited fact). */
    z.strictObject({ atMessageId: Id, title: ForkTitle }),
    /** Fork where this compaction of the root agent was recorded, with it in force. */
    z.strictObject({ atCompactionId: Id, title: ForkTitle }),
  ])
  .meta({ id: "ForkThreadBody" });
export type ForkThreadBody = z.infer<typeof ForkThreadBody>;

export const PostMessageResult = z
  .object({
    runId: z.string(),
    messageId: z.string().nullable(),
    /** True when another run of this thread is active and this one waits behind it. */
    queued: z.boolean(),
    position: z.number().int().nonnegative(),
    /** The thread the message went to: the path's, or the fork a rewind pointed it to. */
    threadId: z.string().optional(),
  })
  .meta({ id: "PostMessageResult" });
export type PostMessageResult = z.infer<typeof PostMessageResult>;

/** POST /v1/agents/:agentId/approvals/:callId */
export const ApprovalBody = z
  .object({
    decision: z.enum(["approve", "deny"]),
    reason: z.string().max(10_000).optional(),
    /** With `approve`: also approve later matching calls (a rule), for this thread or the tenant. */
    rule: ApprovalRuleChoice.optional(),
  })
  .meta({ id: "ApprovalBody" });
export type ApprovalBody = z.infer<typeof ApprovalBody>;

export const ApprovalResult = z
  .object({
    ok: z.literal(true),
    /** The rule the decision made (scope `thread` or `tenant`). */
    rule: ApprovalRule.optional(),
  })
  .meta({ id: "ApprovalResult" });
export type ApprovalResult = z.infer<typeof ApprovalResult>;

/** POST /v1/agents/:id/compact */
export const CompactBody = z
  .object({ strategy: z.enum(["partial", "full"]).optional() })
  .meta({ id: "CompactBody" });
export type CompactBody = z.infer<typeof CompactBody>;

export const CompactResult = z
  .object({ runId: z.string(), queued: z.boolean() })
  .meta({ id: "CompactResult" });
export type CompactResult = z.infer<typeof CompactResult>;

export const SpawnAgentSpec = z.object({
  name: ColumnText.min(1).max(100),
  brief: ColumnText.min(1).max(100_000),
  inherit: AgentInherit.default("fresh"),
});
export type SpawnAgentSpec = z.infer<typeof SpawnAgentSpec>;

/** POST /v1/agents/:id/spawn */
export const SpawnBody = z
  .object({ agents: z.array(SpawnAgentSpec).min(1).max(16) })
  .meta({ id: "SpawnBody" });
export type SpawnBody = z.infer<typeof SpawnBody>;

export const SpawnResult = z
  .object({
    runId: z.string(),
    /** Empty while the run waits behind another active run of the thread (`queued`). */
    agents: z.array(Agent),
    queued: z.boolean(),
  })
  .meta({ id: "SpawnResult" });
export type SpawnResult = z.infer<typeof SpawnResult>;

/** POST /v1/runs/:id/cancel */
export const RunResult = z.object({ run: Run }).meta({ id: "RunResult" });
export type RunResult = z.infer<typeof RunResult>;

/** GET /v1/agents/:id/context: the projection the model would get now. */
/** One part of the next request and its size (the projection's estimates), for the context map. */
export const ContextPart = z
  .object({
    part: z.enum(["system", "tools", "pinned", "summary", "ledger", "restored", "recent"]),
    tokens: z.number().int().nonnegative(),
    /** Messages of the request in this part (tools and the ledger, inside the summary message: 0). */
    messages: z.number().int().nonnegative(),
  })
  .meta({ id: "ContextPart" });
export type ContextPart = z.infer<typeof ContextPart>;

export const ContextView = z
  .object({
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
    /** The request split into system, tools, pinned task, summary, ledger, restored and recent messages. */
    parts: z.array(ContextPart).optional(),
  })
  .meta({ id: "ContextView" });
export type ContextView = z.infer<typeof ContextView>;

export const ErrorCode = z.enum([
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "payload_too_large",
  "unsupported_media_type",
  "upgrade_required",
  "rate_limited",
  "too_many_runs",
  "internal",
  "unavailable",
  "storage_unavailable",
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** Every API error body: `{error: {code, message}}`. */
export const ErrorBody = z
  .object({
    error: z.object({ code: ErrorCode, message: z.string(), details: z.unknown().optional() }),
  })
  .meta({ id: "ErrorBody" });
export type ErrorBody = z.infer<typeof ErrorBody>;
