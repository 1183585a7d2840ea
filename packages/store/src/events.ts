import type { LongrunEvent, NewEvent } from "@longrun/protocol";
import { and, asc, desc, eq, gt, inArray, like, lt, max, min, notInArray, or, type SQL } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { eventHeads, events, threads } from "./schema.ts";
import type { SqlExecutor } from "./sql-engine.ts";

type EventRow = typeof events.$inferSelect;

export interface EventRepository {
  /** Persists an event with the thread's next seq (gapless from 1), assigned in the same transaction. */
  append(event: NewEvent): Promise<LongrunEvent>;
  /** Persists several events atomically, in order. */
  appendMany(events: NewEvent[]): Promise<LongrunEvent[]>;
  /**
   * Events of a thread with seq > afterSeq, in seq order; with `types`, only those (exact names, or
   * `prefix.*` for a family).
   */
  after(
    threadId: string,
    afterSeq: number,
    limit?: number,
    types?: readonly string[],
  ): Promise<LongrunEvent[]>;
  /** Highest seq of a thread, 0 when it has none. */
  head(threadId: string): Promise<number>;
  /** Lowest seq still retained, null when the thread has none. */
  oldest(threadId: string): Promise<number | null>;
  /** When the thread's newest retained event was written, null when it has none. */
  lastAt(threadId: string): Promise<number | null>;
  /**
   * The newest event of each (agent, type) of a thread, in seq order: what a watcher needs to know what
   * each agent is doing now without replaying the log.
   */
  latestByKind(threadId: string): Promise<LongrunEvent[]>;
  /** A tenant's events across threads after per-thread cursors (absent thread: from the start). */
  afterForTenant(tenantId: string, cursors?: Record<string, number>, limit?: number): Promise<LongrunEvent[]>;
  /** Deletes a thread's events with seq < beforeSeq; returns how many went. Seqs go on from the head. */
  prune(threadId: string, beforeSeq: number): Promise<number>;
  /**
   * Retention across all threads: drops events older than `maxAgeMs` and/or all but the newest
   * `keepPerThread` of each thread. Clients that were away longer get an explicit resync.
   */
  pruneRetention(options: { maxAgeMs?: number; keepPerThread?: number }): Promise<number>;
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

/**
 * Persists events inside the caller's write transaction. Each thread's seq comes from its counter row
 * in `event_heads` (one statement per thread, never max(seq) over the log), gapless from 1.
 */
// Raw SQL on purpose: events are appended at least once per fact.
export async function appendEventsIn(
  tx: SqlExecutor,
  context: StoreContext,
  inputs: NewEvent[],
): Promise<LongrunEvent[]> {
  const counts = new Map<string, number>();
  for (const input of inputs) counts.set(input.threadId, (counts.get(input.threadId) ?? 0) + 1);
  const next = new Map<string, number>();
  for (const [threadId, count] of counts) {
    const found = await tx.execute({
      sql: `INSERT INTO event_heads (thread_id, seq) VALUES (?, ?)
            ON CONFLICT (thread_id) DO UPDATE SET seq = seq + excluded.seq RETURNING seq`,
      args: [threadId, count],
    });
    next.set(threadId, Number(found.rows[0]?.seq) - count + 1);
  }
  const now = context.now();
  const rows: EventRow[] = inputs.map((input) => {
    const seq = next.get(input.threadId) as number;
    next.set(input.threadId, seq + 1);
    return {
      threadId: input.threadId,
      seq,
      agentId: input.agentId ?? null,
      runId: input.runId ?? null,
      type: input.type,
      data: input.data,
      createdAt: now,
    };
  });
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
}

/** SQL for a list of event types (`prefix.*` matches a family); undefined when there is no filter. */
function typeFilter(types: readonly string[] | undefined): SQL | undefined {
  if (!types || types.length === 0 || types.includes("*")) return undefined;
  const exact = types.filter((type) => !type.endsWith(".*"));
  const families = types.filter((type) => type.endsWith(".*")).map((type) => `${type.slice(0, -1)}%`);
  return or(
    ...(exact.length > 0 ? [inArray(events.type, exact)] : []),
    ...families.map((pattern) => like(events.type, pattern)),
  );
}

/** The per-thread event log that clients replay from and subscribe after. */
export function createEventRepository(context: StoreContext): EventRepository {
  return {
    async append(event) {
      const stored = await context.writeRaw((tx) => appendEventsIn(tx, context, [event]));
      return stored[0]!;
    },
    appendMany(inputs) {
      if (inputs.length === 0) return Promise.resolve([]);
      return context.writeRaw((tx) => appendEventsIn(tx, context, inputs));
    },
    async after(threadId, afterSeq, limit, types) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(events)
          .where(and(eq(events.threadId, threadId), gt(events.seq, afterSeq), typeFilter(types)))
          .orderBy(asc(events.seq))
          .limit(limit ?? -1),
      );
      return rows.map(toEvent);
    },
    async head(threadId) {
      const rows = await context.read((db) =>
        db.select({ seq: eventHeads.seq }).from(eventHeads).where(eq(eventHeads.threadId, threadId)).limit(1),
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
    async lastAt(threadId) {
      const rows = await context.read((db) =>
        db
          .select({ at: events.createdAt })
          .from(events)
          .where(eq(events.threadId, threadId))
          .orderBy(desc(events.seq))
          .limit(1),
      );
      return rows[0]?.at ?? null;
    },
    async latestByKind(threadId) {
      const rows = await context.read((db) => {
        const newest = db
          .select({ seq: max(events.seq) })
          .from(events)
          .where(eq(events.threadId, threadId))
          .groupBy(events.agentId, events.type);
        return db
          .select()
          .from(events)
          .where(and(eq(events.threadId, threadId), inArray(events.seq, newest)))
          .orderBy(asc(events.seq));
      });
      return rows.map(toEvent);
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
      // The head lives in event_heads, so even an emptied log goes on at head + 1.
      const deleted = await context.write((tx) =>
        tx
          .delete(events)
          .where(and(eq(events.threadId, threadId), lt(events.seq, beforeSeq)))
          .returning({ seq: events.seq }),
      );
      return deleted.length;
    },
    async pruneRetention({ maxAgeMs, keepPerThread }) {
      return context.writeRaw(async (tx) => {
        let deleted = 0;
        if (maxAgeMs !== undefined) {
          const result = await tx.execute({
            sql: "DELETE FROM events WHERE created_at < ?",
            args: [context.now() - maxAgeMs],
          });
          deleted += result.rowsAffected;
        }
        if (keepPerThread !== undefined) {
          const result = await tx.execute({
            sql: `DELETE FROM events WHERE rowid IN (
                    SELECT e.rowid FROM events e JOIN event_heads h ON h.thread_id = e.thread_id
                    WHERE e.seq <= h.seq - ?)`,
            args: [keepPerThread],
          });
          deleted += result.rowsAffected;
        }
        return deleted;
      });
    },
  };
}
