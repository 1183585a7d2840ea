import type { CompactionEvent } from "@longrun/protocol";
import { asc, desc, eq, sql } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { compactions } from "./schema.ts";

/** A compaction to record; the store assigns id and createdAt unless given. */
export type NewCompaction = Omit<CompactionEvent, "id" | "createdAt"> & { id?: string; createdAt?: number };

export interface CompactionRepository {
  /** Persists a compaction; with `fence`, only while the writer still holds the agent's lease. */
  insert(event: NewCompaction, options?: { fence?: number }): Promise<CompactionEvent>;
  /** The compaction in force for an agent (the most recent), or null. */
  latest(agentId: string): Promise<CompactionEvent | null>;
  get(id: string): Promise<CompactionEvent | null>;
  /** An agent's compactions, oldest first. */
  list(agentId: string): Promise<CompactionEvent[]>;
}

/** Compaction events: summaries and the boundaries they join to. Never rewrite facts. */
export function createCompactionRepository(context: StoreContext): CompactionRepository {
  return {
    insert: (event, options) => context.transact((unit) => unit.insertCompaction(event, options)),
    async latest(agentId) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(compactions)
          .where(eq(compactions.agentId, agentId))
          // rowid breaks ties between compactions recorded in the same millisecond.
          .orderBy(desc(compactions.createdAt), desc(sql`rowid`))
          .limit(1),
      );
      return rows[0] ?? null;
    },
    async get(id) {
      const rows = await context.read((db) =>
        db.select().from(compactions).where(eq(compactions.id, id)).limit(1),
      );
      return rows[0] ?? null;
    },
    list(agentId) {
      return context.read((db) =>
        db
          .select()
          .from(compactions)
          .where(eq(compactions.agentId, agentId))
          .orderBy(asc(compactions.createdAt), asc(sql`rowid`)),
      );
    },
  };
}
