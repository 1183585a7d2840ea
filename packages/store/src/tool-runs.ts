import { and, eq } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { toolRuns } from "./schema.ts";

/** A tool call's started/finished record (call ids are unique only within one agent). */
export interface ToolRunRecord {
  agentId: string;
  callId: string;
  name: string;
  startedAt: number;
  /** Not written any more: the call's result fact, in the same transaction, is its finish record. */
  finishedAt: number | null;
}

export interface ToolRunRepository {
  /** Records a call as started; false when it was already started (by an earlier, interrupted attempt). */
  start(input: { agentId: string; callId: string; name: string }): Promise<boolean>;
  get(agentId: string, callId: string): Promise<ToolRunRecord | null>;
}

/** Started/finished records of tool calls, for idempotent retries. */
export function createToolRunRepository(context: StoreContext): ToolRunRepository {
  return {
    start: (input) => context.transact((unit) => unit.startToolRun(input)),
    async get(agentId, callId) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(toolRuns)
          .where(and(eq(toolRuns.agentId, agentId), eq(toolRuns.callId, callId)))
          .limit(1),
      );
      return rows[0] ?? null;
    },
  };
}
