import {
  type AgentState,
  type AgentStatus,
  type Approval,
  type CompactionEvent,
  LongrunError,
  type LongrunEvent,
  type NewEvent,
  type StoredMessage,
  type ThreadStatus,
} from "@longrun/protocol";
import type { AgentStatePatch } from "./agent-state.ts";
import {
  type AgentProbe,
  type AgentRecord,
  type CreateAgentInput,
  claimStatement,
  probeFromRow,
} from "./agents.ts";
import type { NewCompaction } from "./compactions.ts";
import type { StoreContext } from "./context.ts";
import { appendEventsIn } from "./events.ts";
import { checkFence } from "./fence.ts";
import { type FileChangesInput, recordFileChangesIn } from "./file-snapshots.ts";
import { newId } from "./ids.ts";
import { appendMessagesIn, type MessageInput } from "./messages.ts";
import { agentFromRow, approvalFromRow, json, parsed, runFromRow } from "./rows.ts";
import type { RunPatch, RunRecord } from "./runs.ts";
import type { SqlExecutor as SqlTx } from "./sql-engine.ts";

/** Outcome of deciding an approval: exactly one decision per call ever wins. */
export type DecideResult =
  | { ok: true; approval: Approval }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "already_decided"; approval: Approval };

/** A request for a human decision on one tool call. */
export interface ApprovalRequest {
  agentId: string;
  callId: string;
  threadId: string;
  messageId: string;
  toolName: string;
  arguments: string;
}

/**
 * Everything written in one write transaction (BEGIN IMMEDIATE): a fact and the events that describe
 * it commit together or not at all, and the per-thread event seq comes from a counter row.
 */
export interface UnitOfWork {
  /** Fails with `conflict` (leaseLost) when a newer lease holder has written for the agent. */
  checkFence(agentId: string, fence: number): Promise<void>;
  /**
   * Records `fence` as the agent's fencing token before the holder reads anything (one statement), so
   * an earlier holder still running can write nothing after this point; returns what the holder needs
   * to trust its cached view. Fails with leaseLost when a higher token is already recorded.
   */
  claimAgent(agentId: string, fence: number, runId: string): Promise<AgentProbe>;
  appendMessages(
    agentId: string,
    inputs: MessageInput[],
    options?: { fence?: number },
  ): Promise<StoredMessage[]>;
  appendEvents(events: NewEvent[]): Promise<LongrunEvent[]>;
  createAgent(input: CreateAgentInput): Promise<AgentRecord>;
  setAgentStatus(agentId: string, status: AgentStatus): Promise<AgentRecord>;
  /** Sets a thread's status; false when it already had it (no event needed). */
  setThreadStatus(threadId: string, status: ThreadStatus): Promise<boolean>;
  updateRun(runId: string, patch: RunPatch): Promise<RunRecord>;
  /** Records a call as started; false when an earlier, interrupted attempt already started it. */
  startToolRun(input: { agentId: string; callId: string; name: string }): Promise<boolean>;
  /** Records the request (idempotent) and returns the row, decided or not. */
  requestApproval(input: ApprovalRequest): Promise<{ approval: Approval; created: boolean }>;
  decideApproval(input: {
    agentId: string;
    callId: string;
    decision: "approve" | "deny";
    reason?: string | null;
  }): Promise<DecideResult>;
  updateAgentState(agentId: string, patch: AgentStatePatch): Promise<Omit<AgentState, "pendingApprovals">>;
  /** Writes the whole state the caller holds (one statement; the caller knows it is current). */
  writeAgentState(state: Omit<AgentState, "pendingApprovals" | "updatedAt">): Promise<number>;
  /** Persists a compaction; with `fence`, only while the writer still holds the agent's lease. */
  insertCompaction(event: NewCompaction, options?: { fence?: number }): Promise<CompactionEvent>;
  /** Records a tool call's file changes (content-addressed snapshots) with the call's result fact. */
  recordFileChanges(input: FileChangesInput): Promise<void>;
}

/** Binds the write operations to one open transaction. */
export function createUnitOfWork(tx: SqlTx, context: StoreContext): UnitOfWork {
  return {
    checkFence: (agentId, fence) => checkFence(tx, agentId, fence),
    recordFileChanges: (input) => recordFileChangesIn(tx, context.now(), input),
    async claimAgent(agentId, fence, runId) {
      const claimed = await tx.execute(claimStatement(agentId, fence, runId));
      const row = claimed.rows[0];
      if (row) return probeFromRow(row);
      // Not claimed: the agent is unknown, or a newer holder recorded a higher token (this one is stale).
      await checkFence(tx, agentId, fence);
      throw new LongrunError("not_found", `agent ${agentId} not found`);
    },
    appendMessages: (agentId, inputs, options) =>
      inputs.length === 0
        ? Promise.resolve([])
        : appendMessagesIn(tx, context, agentId, inputs, options?.fence),
    appendEvents: (events) =>
      events.length === 0 ? Promise.resolve([]) : appendEventsIn(tx, context, events),

    async createAgent(input) {
      const now = context.now();
      const result = await tx.execute({
        sql: `INSERT INTO agents (id, thread_id, parent_agent_id, name, inherit, fork_message_id, fork_compaction_id,
              fork_source_agent_id, brief, spawn_call_id, status, fence, created_at)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?) RETURNING *`,
        args: [
          input.id ?? newId(now),
          input.threadId,
          input.parentAgentId ?? null,
          input.name,
          input.inherit ?? "fresh",
          input.forkMessageId ?? null,
          input.forkCompactionId ?? null,
          input.forkSourceAgentId ?? null,
          input.brief ?? null,
          input.spawnCallId ?? null,
          input.status ?? "idle",
          now,
        ],
      });
      return agentFromRow(result.rows[0]!);
    },

    async setAgentStatus(agentId, status) {
      const result = await tx.execute({
        sql: "UPDATE agents SET status = ? WHERE id = ? RETURNING *",
        args: [status, agentId],
      });
      const row = result.rows[0];
      if (!row) throw new LongrunError("not_found", `agent ${agentId} not found`);
      return agentFromRow(row);
    },

    async setThreadStatus(threadId, status) {
      const result = await tx.execute({
        sql: "UPDATE threads SET status = ?, updated_at = ? WHERE id = ? AND status != ? RETURNING id",
        args: [status, context.now(), threadId, status],
      });
      return result.rows.length > 0;
    },

    async updateRun(runId, patch) {
      const columns: Record<keyof RunPatch, string> = {
        status: "status",
        error: "error",
        startedAt: "started_at",
        finishedAt: "finished_at",
        jobId: "job_id",
        input: "input",
        interruptRequestedAt: "interrupt_requested_at",
      };
      const sets: string[] = [];
      const args: (string | number | null)[] = [];
      for (const [key, value] of Object.entries(patch) as [keyof RunPatch, unknown][]) {
        if (value === undefined) continue;
        sets.push(`${columns[key]} = ?`);
        args.push(key === "error" ? json(value) : (value as string | number | null));
      }
      const sql =
        sets.length > 0
          ? `UPDATE runs SET ${sets.join(", ")} WHERE id = ? RETURNING *`
          : "SELECT * FROM runs WHERE id = ?";
      const result = await tx.execute({ sql, args: [...args, runId] });
      const row = result.rows[0];
      if (!row) throw new LongrunError("not_found", `run ${runId} not found`);
      return runFromRow(row);
    },

    async startToolRun({ agentId, callId, name }) {
      const result = await tx.execute({
        sql: "INSERT INTO tool_runs (agent_id, call_id, name, started_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING call_id",
        args: [agentId, callId, name, context.now()],
      });
      return result.rows.length > 0;
    },

    async requestApproval(input) {
      const inserted = await tx.execute({
        sql: `INSERT INTO approvals (agent_id, call_id, thread_id, message_id, tool_name, arguments, requested_at)
              VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`,
        args: [
          input.agentId,
          input.callId,
          input.threadId,
          input.messageId,
          input.toolName,
          input.arguments,
          context.now(),
        ],
      });
      if (inserted.rows[0]) return { approval: approvalFromRow(inserted.rows[0]), created: true };
      const existing = await tx.execute({
        sql: "SELECT * FROM approvals WHERE agent_id = ? AND call_id = ?",
        args: [input.agentId, input.callId],
      });
      return { approval: approvalFromRow(existing.rows[0]!), created: false };
    },

    async decideApproval({ agentId, callId, decision, reason }) {
      // The WHERE clause is the whole exactly-once rule: only an undecided row matches, and write
      // transactions are serialized across every process sharing the file.
      const updated = await tx.execute({
        sql: `UPDATE approvals SET decision = ?, reason = ?, decided_at = ?
              WHERE agent_id = ? AND call_id = ? AND decision IS NULL RETURNING *`,
        args: [decision, reason ?? null, context.now(), agentId, callId],
      });
      if (updated.rows[0]) return { ok: true, approval: approvalFromRow(updated.rows[0]) };
      const existing = await tx.execute({
        sql: "SELECT * FROM approvals WHERE agent_id = ? AND call_id = ?",
        args: [agentId, callId],
      });
      const row = existing.rows[0];
      return row
        ? { ok: false, reason: "already_decided", approval: approvalFromRow(row) }
        : { ok: false, reason: "not_found" };
    },

    async updateAgentState(agentId, patch) {
      const found = await tx.execute({
        sql: "SELECT * FROM agent_state WHERE agent_id = ?",
        args: [agentId],
      });
      const row = found.rows[0];
      const next = {
        agentId,
        plan: patch.plan !== undefined ? patch.plan : row ? ((row.plan as string | null) ?? null) : null,
        todos: patch.todos ?? (row ? (parsed<AgentState["todos"]>(row.todos) ?? []) : []),
        recentFiles:
          patch.recentFiles ?? (row ? (parsed<AgentState["recentFiles"]>(row.recent_files) ?? []) : []),
        updatedAt: context.now(),
      };
      await tx.execute({
        sql: `INSERT INTO agent_state (agent_id, plan, todos, recent_files, updated_at) VALUES (?, ?, ?, ?, ?)
              ON CONFLICT (agent_id) DO UPDATE SET plan = excluded.plan, todos = excluded.todos,
              recent_files = excluded.recent_files, updated_at = excluded.updated_at`,
        args: [
          agentId,
          next.plan,
          JSON.stringify(next.todos),
          JSON.stringify(next.recentFiles),
          next.updatedAt,
        ],
      });
      return next;
    },

    async writeAgentState(state) {
      const updatedAt = context.now();
      await tx.execute({
        sql: `INSERT INTO agent_state (agent_id, plan, todos, recent_files, updated_at) VALUES (?, ?, ?, ?, ?)
              ON CONFLICT (agent_id) DO UPDATE SET plan = excluded.plan, todos = excluded.todos,
              recent_files = excluded.recent_files, updated_at = excluded.updated_at`,
        args: [
          state.agentId,
          state.plan,
          JSON.stringify(state.todos),
          JSON.stringify(state.recentFiles),
          updatedAt,
        ],
      });
      return updatedAt;
    },

    async insertCompaction(event, options) {
      if (options?.fence !== undefined) await checkFence(tx, event.agentId, options.fence);
      const createdAt = event.createdAt ?? context.now();
      const row: CompactionEvent = { ...event, id: event.id ?? newId(createdAt), createdAt };
      await tx.execute({
        sql: `INSERT INTO compactions (id, agent_id, cutoff_message_id, cutoff_index, summary_message, pinned_message,
              includes_prefix, history_file, strategy, trigger, tokens_before, tokens_after, restored, ledger, shrunk,
              created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [
          row.id,
          row.agentId,
          row.cutoffMessageId,
          row.cutoffIndex,
          JSON.stringify(row.summaryMessage),
          json(row.pinnedMessage),
          row.includesPrefix ? 1 : 0,
          row.historyFile,
          row.strategy,
          row.trigger,
          row.tokensBefore,
          row.tokensAfter,
          JSON.stringify(row.restored),
          json(row.ledger),
          json(row.shrunk),
          row.createdAt,
        ],
      });
      return row;
    },
  };
}
