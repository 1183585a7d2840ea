import type { AgentState } from "@longrun/protocol";
import { eq, sql } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { agentState } from "./schema.ts";

export type AgentStatePatch = Partial<Omit<AgentState, "agentId" | "updatedAt">>;

export interface AgentStateRepository {
  /** The agent's working state; an empty one (updatedAt 0) if none was saved. */
  get(agentId: string): Promise<AgentState>;
  /** Merges `patch` into the stored state (read and write in one transaction). */
  update(agentId: string, patch: AgentStatePatch): Promise<AgentState>;
  /** The agent that has `callId` among its pending approvals, or null. */
  findByPendingCall(callId: string): Promise<string | null>;
}

/** The state an agent has before anything is saved. */
export function emptyAgentState(agentId: string): AgentState {
  return { agentId, plan: null, todos: [], recentFiles: [], pendingApprovals: [], updatedAt: 0 };
}

/** Plan, TODOs, recently read files and pending approvals: what a compaction restores. */
export function createAgentStateRepository(context: StoreContext): AgentStateRepository {
  return {
    async get(agentId) {
      const rows = await context.read((db) =>
        db.select().from(agentState).where(eq(agentState.agentId, agentId)).limit(1),
      );
      return rows[0] ?? emptyAgentState(agentId);
    },
    async findByPendingCall(callId) {
      const rows = await context.read((db) =>
        db
          .select({ agentId: agentState.agentId })
          .from(agentState)
          .where(
            sql`exists (select 1 from json_each(${agentState.pendingApprovals}) where json_extract(value, '$.callId') = ${callId})`,
          )
          .limit(1),
      );
      return rows[0]?.agentId ?? null;
    },
    update(agentId, patch) {
      return context.write(async (tx) => {
        const rows = await tx.select().from(agentState).where(eq(agentState.agentId, agentId)).limit(1);
        const next: AgentState = {
          ...(rows[0] ?? emptyAgentState(agentId)),
          ...patch,
          agentId,
          updatedAt: context.now(),
        };
        await tx
          .insert(agentState)
          .values(next)
          .onConflictDoUpdate({
            target: agentState.agentId,
            set: {
              plan: next.plan,
              todos: next.todos,
              recentFiles: next.recentFiles,
              pendingApprovals: next.pendingApprovals,
              updatedAt: next.updatedAt,
            },
          });
        return next;
      });
    },
  };
}
