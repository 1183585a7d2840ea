import { z } from "zod";
import { ModelProfile } from "./model-profile.ts";

export const ThreadStatus = z.enum([
  "idle",
  "running",
  "waiting",
  "completed",
  "failed",
  "context_exhausted",
]);
export type ThreadStatus = z.infer<typeof ThreadStatus>;

export const AgentStatus = z.enum([
  "idle",
  "queued",
  "running",
  "waiting_approval",
  "waiting_children",
  "compacting",
  /** Held back for a while (circuit breaker cooldown, provider rate limit); the reason says until when. */
  "waiting",
  "completed",
  "failed",
  "cancelled",
  "context_exhausted",
]);
export type AgentStatus = z.infer<typeof AgentStatus>;

/** How a sub-agent starts: with only its brief, or forked from its parent's projection. */
export const AgentInherit = z.enum(["fresh", "fork"]);
export type AgentInherit = z.infer<typeof AgentInherit>;

export const Thread = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    title: z.string(),
    workspaceDir: z.string(),
    modelProfile: ModelProfile,
    status: ThreadStatus,
    /** The thread this one was forked or rewound from (POST /v1/threads/{id}/fork|rewind). */
    forkedFromThreadId: z.string().nullable().default(null),
    /** Set by a rewind: the fork that continues this thread; messages posted here go there. */
    rewoundToThreadId: z.string().nullable().default(null),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: "Thread" });
export type Thread = z.infer<typeof Thread>;

export const Agent = z
  .object({
    id: z.string(),
    threadId: z.string(),
    parentAgentId: z.string().nullable(),
    name: z.string(),
    inherit: AgentInherit,
    forkMessageId: z.string().nullable(),
    forkCompactionId: z.string().nullable(),
    /** A forked thread's root agent: the source thread's agent whose facts are its prefix. */
    forkSourceAgentId: z.string().nullable().default(null),
    /** A sub-agent's task as its parent gave it. */
    brief: z.string().nullable().default(null),
    /** The parent's spawn_agents call (or `api:<runId>`) that created this sub-agent. */
    spawnCallId: z.string().nullable().default(null),
    status: AgentStatus,
    createdAt: z.number().int(),
  })
  .meta({ id: "Agent" });
export type Agent = z.infer<typeof Agent>;

export const RunKind = z.enum(["message", "compact", "spawn", "approval"]);
/**
 * `stuck`: the reconciler found no job, lease or event moving the run for longer than its lease and
 * could not restart it; the run's error says why. Still active: it can be cancelled or recover.
 */
export const RunStatus = z.enum([
  "queued",
  "running",
  "waiting",
  "stuck",
  "completed",
  "failed",
  "cancelled",
]);
export type RunStatus = z.infer<typeof RunStatus>;

export const Run = z
  .object({
    id: z.string(),
    threadId: z.string(),
    agentId: z.string(),
    kind: RunKind,
    status: RunStatus,
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    createdAt: z.number().int(),
    startedAt: z.number().int().nullable(),
    finishedAt: z.number().int().nullable(),
    /** A queued message run's text, appended when the run starts (so it never splits a tool loop). */
    input: z.string().nullable().default(null),
    /** When a new message asked the run to stop at its next step boundary (multitask: interrupt). */
    interruptRequestedAt: z.number().int().nullable().optional(),
  })
  .meta({ id: "Run" });
export type Run = z.infer<typeof Run>;

export const TodoItem = z.object({
  content: z.string(),
  status: z.enum(["pending", "in_progress", "completed"]),
});
export type TodoItem = z.infer<typeof TodoItem>;

export const PendingApproval = z.object({
  callId: z.string(),
  messageId: z.string(),
  toolName: z.string(),
  arguments: z.string(),
  requestedAt: z.number().int(),
  /** Set when a user resolved it; the next step runs the call or records the denial. */
  decision: z.enum(["approve", "deny"]).optional(),
  reason: z.string().optional(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;

/** A tool call that needs a human decision, and the decision once taken (exactly once). */
export const Approval = z.object({
  agentId: z.string(),
  callId: z.string(),
  threadId: z.string(),
  messageId: z.string(),
  toolName: z.string(),
  arguments: z.string(),
  requestedAt: z.number().int(),
  decision: z.enum(["approve", "deny"]).nullable(),
  reason: z.string().nullable(),
  decidedAt: z.number().int().nullable(),
});
export type Approval = z.infer<typeof Approval>;

/** Working state restored after a compaction: plan, TODOs, recently read files. */
export const AgentState = z
  .object({
    agentId: z.string(),
    plan: z.string().nullable(),
    todos: z.array(TodoItem),
    recentFiles: z.array(z.object({ path: z.string(), readAt: z.number().int() })),
    pendingApprovals: z.array(PendingApproval),
    updatedAt: z.number().int(),
  })
  .meta({ id: "AgentState" });
export type AgentState = z.infer<typeof AgentState>;
