import { z } from "zod";
import { Approval } from "./agent.ts";
import { CompactionEvent } from "./compaction.ts";
import { ContextMeasured } from "./events.ts";
import { ThreadDetail } from "./rest.ts";

/**
 * What one agent is doing now, derived from the latest events of each kind: its latest step and
 * window figures, the tool call it is in (if any), and when it last did anything.
 */
export const AgentActivity = z
  .object({
    agentId: z.string(),
    /** Step of the latest `context.measured` (null: no model call yet). */
    step: z.number().int().nullable(),
    /** Tokens of the latest projection and the window it is measured against. */
    tokens: z.number().int().nullable(),
    maxInputTokens: z.number().int().nullable(),
    triggerTokens: z.number().int().nullable(),
    /** Seq of that measurement (the event). */
    measuredSeq: z.number().int().nullable(),
    /** The whole latest measurement, so a client can draw the context bar before any replay. */
    measurement: ContextMeasured.data.extend({ seq: z.number().int(), at: z.number().int() }).nullable(),
    /**
     * The latest completed compaction: when newer than the measurement (`seq` above `measuredSeq`, e.g. a
     * /compact between turns), its `tokensAfter` is the size of the next request (absent: older servers).
     */
    compacted: z
      .object({ tokensAfter: z.number().int(), seq: z.number().int(), at: z.number().int() })
      .nullable()
      .optional(),
    /** The tool call started and not completed yet. */
    tool: z.object({ callId: z.string(), name: z.string(), startedAt: z.number().int() }).nullable(),
    /** When the current status began (its `agent.status` event), null when no such event. */
    statusSince: z.number().int().nullable(),
    lastEventAt: z.number().int().nullable(),
    lastEventType: z.string().nullable(),
  })
  .meta({ id: "AgentActivity" });
export type AgentActivity = z.infer<typeof AgentActivity>;

/**
 * GET /v1/threads/:id/snapshot: the thread as it stands at `headSeq`. A watching client renders it
 * and then applies only the events after `headSeq`, instead of replaying the log to find out.
 */
export const ThreadSnapshot = z
  .object({
    thread: ThreadDetail,
    /** Seq of the newest persisted event covered by this snapshot (0: none). */
    headSeq: z.number().int().nonnegative(),
    activity: z.array(AgentActivity),
    /** Undecided approvals of the thread's agents, oldest first. */
    approvals: z.array(Approval),
    at: z.number().int(),
  })
  .meta({ id: "ThreadSnapshot" });
export type ThreadSnapshot = z.infer<typeof ThreadSnapshot>;

/** GET /v1/approvals?limit=: the tenant's undecided approvals across threads, oldest first. */
export const ApprovalInboxQuery = z.object({
  limit: z.coerce.number<number>().int().min(1).max(1000).optional(),
});
export type ApprovalInboxQuery = z.infer<typeof ApprovalInboxQuery>;

export const ApprovalInbox = z
  .object({
    approvals: z.array(Approval.extend({ threadTitle: z.string(), agentName: z.string() })),
  })
  .meta({ id: "ApprovalInbox" });
export type ApprovalInbox = z.infer<typeof ApprovalInbox>;

/**
 * The part of the log a compaction took out of the model's context, as the server's projection has it:
 * the seq range from the previous cutoff up to its own, and the messages of that range (or before it)
 * the projection still sends verbatim — the system prompt, the task it pinned.
 */
export const CompactionCoverage = z
  .object({
    fromSeq: z.number().int().nonnegative(),
    /** Last seq before the cutoff; below `fromSeq` when the compaction moved the cutoff nowhere. */
    toSeq: z.number().int(),
    kept: z.array(
      z.object({
        seq: z.number().int().nonnegative(),
        messageId: z.string(),
        why: z.enum(["system", "pinned"]),
      }),
    ),
  })
  .meta({ id: "CompactionCoverage" });
export type CompactionCoverage = z.infer<typeof CompactionCoverage>;

/**
 * GET /v1/agents/:id/compactions?offset=: the agent's compactions after the first `offset` (the list only
 * grows, oldest first), so a client that holds the first n reads what is new, not all of it again.
 */
export const CompactionListQuery = z.object({
  offset: z.coerce.number<number>().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
export type CompactionListQuery = z.infer<typeof CompactionListQuery>;

/**
 * GET /v1/agents/:id/compactions: every compaction of the agent (or those after `offset`), oldest first,
 * with summary and ledger.
 */
export const CompactionList = z
  .object({ compactions: z.array(CompactionEvent.extend({ coverage: CompactionCoverage.optional() })) })
  .meta({ id: "CompactionList" });
export type CompactionList = z.infer<typeof CompactionList>;
