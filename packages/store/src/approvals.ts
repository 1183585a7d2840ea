import type { Approval } from "@longrun/protocol";
import { and, asc, eq } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { approvalFromRow } from "./rows.ts";
import { approvals } from "./schema.ts";
import type { ApprovalRequest, DecideResult } from "./unit-of-work.ts";

export interface ApprovalRepository {
  /** Records a request (idempotent): the existing row, decided or not, when there is one. */
  request(input: ApprovalRequest): Promise<{ approval: Approval; created: boolean }>;
  /** Takes a decision exactly once across every process sharing the database. */
  decide(input: {
    agentId: string;
    callId: string;
    decision: "approve" | "deny";
    reason?: string | null;
  }): Promise<DecideResult>;
  get(agentId: string, callId: string): Promise<Approval | null>;
  /** A thread's approvals, oldest first (decided ones included). */
  listByThread(threadId: string): Promise<Approval[]>;
  /**
   * A tenant's approvals, oldest first: with `callId`, only that call id's; with `pending`, only the
   * undecided ones.
   */
  forTenant(
    tenantId: string,
    options?: { callId?: string; pending?: boolean; limit?: number },
  ): Promise<Approval[]>;
}

const toApproval = (row: typeof approvals.$inferSelect): Approval => ({
  ...row,
  decision: row.decision ?? null,
  reason: row.reason ?? null,
  decidedAt: row.decidedAt ?? null,
});

/** Human decisions on tool calls, keyed by agent and call id. */
export function createApprovalRepository(context: StoreContext): ApprovalRepository {
  return {
    request: (input) => context.transact((unit) => unit.requestApproval(input)),
    decide: (input) => context.transact((unit) => unit.decideApproval(input)),
    async get(agentId, callId) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(approvals)
          .where(and(eq(approvals.agentId, agentId), eq(approvals.callId, callId)))
          .limit(1),
      );
      return rows[0] ? toApproval(rows[0]) : null;
    },
    async listByThread(threadId) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(approvals)
          .where(eq(approvals.threadId, threadId))
          .orderBy(asc(approvals.requestedAt)),
      );
      return rows.map(toApproval);
    },
    async forTenant(tenantId, options = {}) {
      // Read with every thread list: a statement prepared once per shape (at most four), not a
      // three-table drizzle query built and prepared anew on each call.
      const pending = options.pending ? " AND approvals.decision IS NULL" : "";
      const byCall = options.callId === undefined ? "" : " AND approvals.call_id = ?";
      const result = await context.readRaw((reader) =>
        reader.execute({
          sql: `SELECT approvals.* FROM approvals
                JOIN agents ON agents.id = approvals.agent_id
                JOIN threads ON threads.id = agents.thread_id
                WHERE threads.tenant_id = ?${pending}${byCall}
                ORDER BY approvals.requested_at, approvals.rowid LIMIT ?`,
          args: [tenantId, ...(options.callId === undefined ? [] : [options.callId]), options.limit ?? 500],
        }),
      );
      return result.rows.map(approvalFromRow);
    },
  };
}
