import type { Transaction } from "@libsql/client";
import type { LongrunEvent, NewEvent } from "@longrun/protocol";
import { and, asc, eq, gt, lt, max, min, notInArray, or, type SQL } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { events, threads } from "./schema.ts";

type EventRow = typeof events.$inferSelect;

export interface EventRepository {
  /** Persists an event with the thread's next seq (gapless from 1), assigned in the same transaction. */
  append(event: NewEvent): Promise<LongrunEvent>;
  /** Persists several events atomically, in order. */
  appendMany(events: NewEvent[]): Promise<LongrunEvent[]>;
  /** Events of a thread with seq > afterSeq, in seq order. */
  after(threadId: string, afterSeq: number, limit?: number): Promise<LongrunEvent[]>;
  /** Highest seq of a thread, 0 when it has none. */
  head(threadId: string): Promise<number>;
  /** Lowest seq still retained, null when the thread has none. */
  oldest(threadId: string): Promise<number | null>;
  /** A tenant's events across threads after per-thread cursors (absent thread: from the start). */
  afterForTenant(tenantId: string, cursors?: Record<string, number>, limit?: number): Promise<LongrunEvent[]>;
  /** Deletes a thread's events with seq < beforeSeq (retention), never the newest; returns how many went. */
  prune(threadId: string, beforeSeq: number): Promise<number>;
}

/** Maps a row to the event envelope; data was validated when the event was made. */
export function toEvent(row: EventRow): LongrunEvent {
  const event: Record<string, unknown> = {
    threadId: row.threadId,
    seq: row.seq,
    type: row.type,
    data: row.data,
    at: row.createdAt,
  };
  if (row.agentId !== null) event.agentId = row.agentId;
  if (row.runId !== null) event.runId = row.runId;
  return event as LongrunEvent;
}

/** The per-thread event log that clients replay from and subscribe after. */
export function createEventRepository(context: StoreContext): EventRepository {
  // Raw SQL on purpose: events are appended at least once per message, and drizzle's builder roughly
  // halves the rate of this path.
  const insertAll = async (tx: Transaction, inputs: NewEvent[]): Promise<LongrunEvent[]> => {
    const heads = new Map<string, number>();
    const now = context.now();
    const rows: EventRow[] = [];
    for (const input of inputs) {
      let head = heads.get(input.threadId);
      if (head === undefined) {
        const found = await tx.execute({
          sql: "SELECT max(seq) AS seq FROM events WHERE thread_id = ?",
          args: [input.threadId],
        });
        const value = found.rows[0]?.seq;
        head = value === null || value === undefined ? 0 : Number(value);
      }
      head += 1;
      heads.set(input.threadId, head);
      rows.push({
        threadId: input.threadId,
        seq: head,
        agentId: input.agentId ?? null,
        runId: input.runId ?? null,
        type: input.type,
        data: input.data,
        createdAt: now,
      });
    }
    for (let start = 0; start < rows.length; start += 500) {
      const chunk = rows.slice(start, start + 500);
      await tx.execute({
        sql: `INSERT INTO events (thread_id, seq, agent_id, run_id, type, data, created_at) VALUES ${chunk
          .map(() => "(?, ?, ?, ?, ?, ?, ?)")
          .join(", ")}`,
        args: chunk.flatMap((row) => [
          row.threadId,
          row.seq,
          row.agentId,
          row.runId,
          row.type,
          JSON.stringify(row.data),
          row.createdAt,
        ]),
      });
    }
    return rows.map(toEvent);
  };

  return {
    async append(event) {
      const stored = await context.writeRaw((tx) => insertAll(tx, [event]));
      return stored[0]!;
    },
    appendMany(inputs) {
      if (inputs.length === 0) return Promise.resolve([]);
      return context.writeRaw((tx) => insertAll(tx, inputs));
    },
    async after(threadId, afterSeq, limit) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(events)
          .where(and(eq(events.threadId, threadId), gt(events.seq, afterSeq)))
          .orderBy(asc(events.seq))
          .limit(limit ?? -1),
      );
      return rows.map(toEvent);
    },
    async head(threadId) {
      const rows = await context.read((db) =>
        db
          .select({ seq: max(events.seq) })
          .from(events)
          .where(eq(events.threadId, threadId)),
      );
      return rows[0]?.seq ?? 0;
    },
    async oldest(threadId) {
      const rows = await context.read((db) =>
        db
          .select({ seq: min(events.seq) })
          .from(events)
          .where(eq(events.threadId, threadId)),
      );
      return rows[0]?.seq ?? null;
    },
    async afterForTenant(tenantId, cursors = {}, limit) {
      const entries = Object.entries(cursors);
      const clauses: SQL[] = entries.map(([threadId, seq]) =>
        and(eq(events.threadId, threadId), gt(events.seq, seq)),
      ) as SQL[];
      if (entries.length > 0) {
        clauses.push(
          notInArray(
            events.threadId,
            entries.map(([threadId]) => threadId),
          ),
        );
      }
      const rows = await context.read((db) =>
        db
          .select({ event: events })
          .from(events)
          .innerJoin(threads, eq(threads.id, events.threadId))
          .where(and(eq(threads.tenantId, tenantId), clauses.length > 0 ? or(...clauses) : undefined))
          .orderBy(asc(events.createdAt), asc(events.threadId), asc(events.seq))
          .limit(limit ?? -1),
      );
      return rows.map((row) => toEvent(row.event));
    },
    async prune(threadId, beforeSeq) {
      const deleted = await context.write(async (tx) => {
        // The newest event always stays: seq is max+1, so an emptied log would restart at 1.
        const found = await tx
          .select({ seq: max(events.seq) })
          .from(events)
          .where(eq(events.threadId, threadId));
        const limit = Math.min(beforeSeq, found[0]?.seq ?? 0);
        return tx
          .delete(events)
          .where(and(eq(events.threadId, threadId), lt(events.seq, limit)))
          .returning({ seq: events.seq });
      });
      return deleted.length;
    },
  };
}
