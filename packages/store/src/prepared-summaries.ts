import { and, eq } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { preparedSummaries } from "./schema.ts";

/** A background summary of an agent's older prefix, as stored (`summaryText` null while it is made). */
export type PreparedSummaryRow = typeof preparedSummaries.$inferSelect;

export interface PreparedSummaryRepository {
  /** The agent's prepared summary (ready or being made), or null. */
  get(agentId: string): Promise<PreparedSummaryRow | null>;
  /** Records a summary being made (text null), replacing the agent's previous one. */
  start(row: Omit<PreparedSummaryRow, "summaryText">): Promise<void>;
  /** The summary is ready; false when the row was replaced or taken meanwhile. */
  ready(agentId: string, compactionKey: string, summaryText: string): Promise<boolean>;
  /** Drops the agent's prepared summary (only the one with this key, when given). */
  remove(agentId: string, compactionKey?: string): Promise<void>;
}

/** Prepared summaries: one row per agent, replaced or removed, never part of the log. */
export function createPreparedSummaryRepository(context: StoreContext): PreparedSummaryRepository {
  const mine = (agentId: string, compactionKey?: string) =>
    compactionKey === undefined
      ? eq(preparedSummaries.agentId, agentId)
      : and(eq(preparedSummaries.agentId, agentId), eq(preparedSummaries.compactionKey, compactionKey));
  return {
    async get(agentId) {
      const rows = await context.read((db) =>
        db.select().from(preparedSummaries).where(eq(preparedSummaries.agentId, agentId)).limit(1),
      );
      return rows[0] ?? null;
    },
    async start(row) {
      const values = { ...row, summaryText: null };
      const { agentId: _agentId, ...rest } = values;
      await context.write((tx) =>
        tx
          .insert(preparedSummaries)
          .values(values)
          .onConflictDoUpdate({ target: preparedSummaries.agentId, set: rest }),
      );
    },
    async ready(agentId, compactionKey, summaryText) {
      const updated = await context.write((tx) =>
        tx
          .update(preparedSummaries)
          .set({ summaryText })
          .where(mine(agentId, compactionKey))
          .returning({ agentId: preparedSummaries.agentId }),
      );
      return updated.length > 0;
    },
    async remove(agentId, compactionKey) {
      await context.write((tx) => tx.delete(preparedSummaries).where(mine(agentId, compactionKey)));
    },
  };
}
