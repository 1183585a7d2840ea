import { eq } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { toolRuns } from "./schema.ts";

export interface ToolRunRepository {
  /** Records a call as started; false when it was already started (by an earlier, interrupted attempt). */
  start(input: { agentId: string; callId: string; name: string }): Promise<boolean>;
  /** Marks a call finished (its result is in the log). */
  finish(callId: string): Promise<void>;
  get(callId: string): Promise<{
    callId: string;
    agentId: string;
    name: string;
    startedAt: number;
    finishedAt: number | null;
  } | null>;
}

/** Started/finished records of tool calls, for idempotent retries. */
export function createToolRunRepository(context: StoreContext): ToolRunRepository {
  return {
    async start({ agentId, callId, name }) {
      const rows = await context.write((tx) =>
        tx
          .insert(toolRuns)
          .values({ callId, agentId, name, startedAt: context.now(), finishedAt: null })
          .onConflictDoNothing()
          .returning({ callId: toolRuns.callId }),
      );
      return rows.length > 0;
    },
    async finish(callId) {
      await context.write((tx) =>
        tx.update(toolRuns).set({ finishedAt: context.now() }).where(eq(toolRuns.callId, callId)),
      );
    },
    async get(callId) {
      const rows = await context.read((db) =>
        db.select().from(toolRuns).where(eq(toolRuns.callId, callId)).limit(1),
      );
      return rows[0] ?? null;
    },
  };
}
