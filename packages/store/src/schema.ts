import type {
  AgentInherit,
  AgentStatus,
  ChatMessage,
  CompactionShrink,
  CompactionStrategy,
  CompactionTrigger,
  Ledger,
  MessageContent,
  ModelProfile,
  ProviderState,
  RestoredItem,
  Role,
  RunStatus,
  ThreadStatus,
  TodoItem,
  ToolCall,
  ToolStatus,
  Usage,
} from "@longrun/protocol";
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

// References between tables are logical (no FOREIGN KEY clauses): SQLite leaves them unenforced by
// default, and the log must accept facts in whatever order concurrent writers commit them.

export const threads = sqliteTable(
  "threads",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    title: text("title").notNull(),
    workspaceDir: text("workspace_dir").notNull(),
    modelProfile: text("model_profile", { mode: "json" }).$type<ModelProfile>().notNull(),
    status: text("status").$type<ThreadStatus>().notNull().default("idle"),
    /** The thread this one was forked (or rewound) from; null for an original thread. */
    forkedFromThreadId: text("forked_from_thread_id"),
    /** Set by a rewind: the fork that continues this thread (POST /messages follows it). */
    rewoundToThreadId: text("rewound_to_thread_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (table) => [index("threads_tenant_created_idx").on(table.tenantId, table.createdAt)],
);

export const agents = sqliteTable(
  "agents",
  {
    id: text("id").primaryKey(),
    threadId: text("thread_id").notNull(),
    parentAgentId: text("parent_agent_id"),
    name: text("name").notNull(),
    inherit: text("inherit").$type<AgentInherit>().notNull().default("fresh"),
    forkMessageId: text("fork_message_id"),
    forkCompactionId: text("fork_compaction_id"),
    /**
     * A thread fork's root agent: the source agent whose facts up to `forkMessageId` are its prefix
     * (a sub-agent fork's source is its parent, `parentAgentId`).
     */
    forkSourceAgentId: text("fork_source_agent_id"),
    /** The sub-agent's task as its parent wrote it. */
    brief: text("brief"),
    /** The parent's spawn call (or `api:<runId>`) that created this sub-agent. */
    spawnCallId: text("spawn_call_id"),
    status: text("status").$type<AgentStatus>().notNull().default("idle"),
    /** Highest lease fencing token that has appended for this agent. */
    fence: integer("fence").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    index("agents_thread_idx").on(table.threadId, table.createdAt),
    index("agents_parent_idx").on(table.parentAgentId),
  ],
);

export const messages = sqliteTable(
  "messages",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull(),
    seq: integer("seq").notNull(),
    role: text("role").$type<Role>().notNull(),
    content: text("content", { mode: "json" }).$type<MessageContent>(),
    name: text("name"),
    toolCalls: text("tool_calls", { mode: "json" }).$type<ToolCall[]>(),
    toolCallId: text("tool_call_id"),
    toolStatus: text("tool_status").$type<ToolStatus>(),
    usage: text("usage", { mode: "json" }).$type<Usage>(),
    providerState: text("provider_state", { mode: "json" }).$type<ProviderState>(),
    tokenCount: integer("token_count").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [
    // Serves uniqueness, reads by (agent, seq) range and max(seq) lookups.
    uniqueIndex("messages_agent_seq_idx").on(table.agentId, table.seq),
    index("messages_agent_tool_call_idx").on(table.agentId, table.toolCallId),
  ],
);

export const compactions = sqliteTable(
  "compactions",
  {
    id: text("id").primaryKey(),
    agentId: text("agent_id").notNull(),
    cutoffMessageId: text("cutoff_message_id"),
    cutoffIndex: integer("cutoff_index").notNull(),
    summaryMessage: text("summary_message", { mode: "json" }).$type<ChatMessage>().notNull(),
    pinnedMessage: text("pinned_message", { mode: "json" }).$type<ChatMessage>(),
    includesPrefix: integer("includes_prefix", { mode: "boolean" }).notNull().default(false),
    historyFile: text("history_file"),
    strategy: text("strategy").$type<CompactionStrategy>().notNull(),
    trigger: text("trigger").$type<CompactionTrigger>().notNull(),
    tokensBefore: integer("tokens_before").notNull(),
    tokensAfter: integer("tokens_after").notNull(),
    restored: text("restored", { mode: "json" }).$type<RestoredItem[]>().notNull(),
    /** Working-state ledger derived from the facts (null on compactions before it existed). */
    ledger: text("ledger", { mode: "json" }).$type<Ledger>(),
    /** What was shrunk so the compacted context fits. */
    shrunk: text("shrunk", { mode: "json" }).$type<CompactionShrink[]>(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("compactions_agent_created_idx").on(table.agentId, table.createdAt)],
);

export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    threadId: text("thread_id").notNull(),
    agentId: text("agent_id").notNull(),
    kind: text("kind").$type<"message" | "compact" | "spawn" | "approval">().notNull(),
    status: text("status").$type<RunStatus>().notNull().default("queued"),
    error: text("error", { mode: "json" }).$type<{ code: string; message: string }>(),
    parentRunId: text("parent_run_id"),
    jobId: text("job_id"),
    /** A queued message run's text, appended when the run starts. */
    input: text("input"),
    /** When a new message asked this run to stop at its next step boundary (multitask: interrupt). */
    interruptRequestedAt: integer("interrupt_requested_at"),
    createdAt: integer("created_at").notNull(),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
  },
  (table) => [
    index("runs_thread_created_idx").on(table.threadId, table.createdAt),
    index("runs_thread_status_idx").on(table.threadId, table.status),
    index("runs_parent_idx").on(table.parentRunId),
    index("runs_status_idx").on(table.status),
  ],
);

export const events = sqliteTable(
  "events",
  {
    threadId: text("thread_id").notNull(),
    seq: integer("seq").notNull(),
    agentId: text("agent_id"),
    runId: text("run_id"),
    type: text("type").notNull(),
    data: text("data", { mode: "json" }).$type<unknown>().notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.threadId, table.seq] })],
);

export const agentState = sqliteTable("agent_state", {
  agentId: text("agent_id").primaryKey(),
  plan: text("plan"),
  todos: text("todos", { mode: "json" }).$type<TodoItem[]>().notNull(),
  recentFiles: text("recent_files", { mode: "json" })
    .$type<Array<{ path: string; readAt: number }>>()
    .notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * A summary of an agent's older prefix made in the background before the trigger (at most one per
 * agent: a newer one replaces it). Not a fact: it is applied by a compaction, or discarded.
 */
export const preparedSummaries = sqliteTable("prepared_summaries", {
  agentId: text("agent_id").primaryKey(),
  /** The compaction in force when it was made (null: none). */
  baseCompactionId: text("base_compaction_id"),
  /** The background job's key (its `compaction.prepared` event carries it). */
  compactionKey: text("compaction_key").notNull(),
  /** First fact the summary does not cover. */
  cutoffMessageId: text("cutoff_message_id").notNull(),
  /** Null while the summary call runs. */
  summaryText: text("summary_text"),
  form: text("form").$type<"continuation" | "standalone">().notNull(),
  tokensAt: integer("tokens_at").notNull(),
  /** When the summary call started. */
  preparedAt: integer("prepared_at").notNull(),
});

/**
 * One row per tool call that needed a human decision. The decision is taken exactly once (an UPDATE
 * that only matches an undecided row) and kept after the call ran, so a step retried after a crash
 * finds it again instead of asking twice.
 */
/** "Always approve" rules: a tool and a glob over its call's subject, for a thread or a whole tenant. */
export const approvalRules = sqliteTable(
  "approval_rules",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    /** Null: every thread of the tenant. */
    threadId: text("thread_id"),
    toolName: text("tool_name").notNull(),
    pattern: text("pattern").notNull(),
    fromCall: text("from_call"),
    createdAt: integer("created_at").notNull(),
    /** Revoked rules are kept (the events that name them stay explainable) and never match again. */
    revokedAt: integer("revoked_at"),
  },
  (table) => [index("approval_rules_tenant_idx").on(table.tenantId, table.toolName)],
);

export const approvals = sqliteTable(
  "approvals",
  {
    agentId: text("agent_id").notNull(),
    callId: text("call_id").notNull(),
    threadId: text("thread_id").notNull(),
    messageId: text("message_id").notNull(),
    toolName: text("tool_name").notNull(),
    arguments: text("arguments").notNull(),
    requestedAt: integer("requested_at").notNull(),
    decision: text("decision").$type<"approve" | "deny">(),
    reason: text("reason"),
    decidedAt: integer("decided_at"),
  },
  (table) => [
    primaryKey({ columns: [table.agentId, table.callId] }),
    index("approvals_thread_idx").on(table.threadId, table.requestedAt),
    index("approvals_call_idx").on(table.callId),
  ],
);

/** The last event seq of each thread: the next event takes seq + 1 in the same write transaction. */
export const eventHeads = sqliteTable("event_heads", {
  threadId: text("thread_id").primaryKey(),
  seq: integer("seq").notNull(),
});

export type ApiKeyOrigin = "created" | "env" | "generated";

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenantId: text("tenant_id").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
    /** Where the key came from: `created` (`longrun token create`, the API), `env` (LONGRUN_TOKEN), `generated` (embedded's token file). */
    origin: text("origin").$type<ApiKeyOrigin>().notNull().default("created"),
    /** An admin key may list and revoke every tenant's keys (GET/DELETE /v1/tokens). */
    admin: integer("admin", { mode: "boolean" }).notNull().default(false),
    /** The token's last four characters, so a listing can be matched to a token without storing it. */
    hint: text("hint").notNull().default(""),
  },
  (table) => [
    uniqueIndex("api_keys_token_hash_idx").on(table.tokenHash),
    index("api_keys_tenant_idx").on(table.tenantId),
  ],
);

/**
 * A tool call recorded as started before it runs: a retried step that finds a started call without
 * a result answers it as cancelled instead of running it twice.
 */
export const toolRuns = sqliteTable(
  "tool_runs",
  {
    agentId: text("agent_id").notNull(),
    // Call ids are unique only within one agent's log: providers promise nothing more.
    callId: text("call_id").notNull(),
    name: text("name").notNull(),
    startedAt: integer("started_at").notNull(),
    /** No longer written: the call's result fact, committed with it, is the finish record. */
    finishedAt: integer("finished_at"),
  },
  (table) => [primaryKey({ columns: [table.agentId, table.callId] })],
);

/**
 * File contents the agents' tools wrote or replaced, addressed by the sha256 of their bytes: stored
 * once per tenant and content however many snapshots name them. `bytes` is null when the content was
 * over the size cap (LONGRUN_SNAPSHOT_MAX_BYTES): only its hash and size are kept.
 */
export const blobs = sqliteTable(
  "blobs",
  {
    tenantId: text("tenant_id").notNull(),
    hash: text("hash").notNull(),
    size: integer("size").notNull(),
    bytes: blob("bytes", { mode: "buffer" }),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.tenantId, table.hash] })],
);

/**
 * Append-only: a file of the thread's workspace as a tool call left it (`after`), and as it was before
 * the thread first changed it (`before`). Written in the transaction of the call's result fact
 * (`message_id`, `seq`). `hash` null: the file did not exist (or was deleted).
 */
export const fileSnapshots = sqliteTable(
  "file_snapshots",
  {
    id: text("id").primaryKey(),
    threadId: text("thread_id").notNull(),
    agentId: text("agent_id").notNull(),
    messageId: text("message_id").notNull(),
    seq: integer("seq").notNull(),
    callId: text("call_id").notNull(),
    path: text("path").notNull(),
    phase: text("phase").$type<"before" | "after">().notNull(),
    hash: text("hash"),
    size: integer("size"),
    tooLarge: integer("too_large", { mode: "boolean" }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (table) => [index("file_snapshots_thread_path_idx").on(table.threadId, table.path)],
);

/** Every table, for `drizzle(client, { schema })`. */
export const schema = {
  threads,
  agents,
  messages,
  compactions,
  runs,
  events,
  eventHeads,
  agentState,
  preparedSummaries,
  approvals,
  apiKeys,
  toolRuns,
  blobs,
  fileSnapshots,
};
