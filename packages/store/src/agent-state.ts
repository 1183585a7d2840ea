import type { AgentState, PendingApproval } from "@longrun/protocol";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { agentState, approvals } from "./schema.ts";

export type AgentStatePatch = Partial<Pick<AgentState, "plan" | "todos" | "recentFiles">>;

export interface AgentStateRepository {
  /** The agent's working state (pending approvals from the approvals table); empty if none was saved. */
  get(agentId: string): Promise<AgentState>;
  /** Merges `patch` into the stored state (read and write in one transaction). */
  update(agentId: string, patch: AgentStatePatch): Promise<AgentState>;
}

/** The state an agent has before anything is saved. */
export function emptyAgentState(agentId: string): AgentState {
  return { agentId, plan: null, todos: [], recentFiles: [], pendingApprovals: [], updatedAt: 0 };
}

/** Plan, TODOs, recently read files and pending approvals: what a compaction restores. */
export function createAgentStateRepository(context: StoreContext): AgentStateRepository {
  const pendingOf = async (agentId: string): Promise<PendingApproval[]> => {
    const rows = await context.read((db) =>
      db
        .select()
        .from(approvals)
        .where(and(eq(approvals.agentId, agentId), isNull(approvals.decision)))
        .orderBy(asc(approvals.requestedAt)),
    );
    return rows.map((row) => ({
      callId: row.callId,
      messageId: row.messageId,
      toolName: row.toolName,
      arguments: row.arguments,
      requestedAt: row.requestedAt,
    }));
  };
  return {
    async get(agentId) {
      const [rows, pendingApprovals] = await Promise.all([
        context.read((db) => db.select().from(agentState).where(eq(agentState.agentId, agentId)).limit(1)),
        pendingOf(agentId),
      ]);
      const row = rows[0];
      return row ? { ...row, pendingApprovals } : { ...emptyAgentState(agentId), pendingApprovals };
    },
    async update(agentId, patch) {
      const next = await context.transact((unit) => unit.updateAgentState(agentId, patch));
      return { ...next, pendingApprovals: await pendingOf(agentId) };
    },
  };
}
