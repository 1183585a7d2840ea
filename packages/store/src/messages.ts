import { LongrunError, type NewMessage, type StoredMessage } from "@longrun/protocol";
import { and, asc, count, desc, eq, gt, gte, lte } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { checkFence } from "./fence.ts";
import {
  argsOf,
  COLUMNS,
  fromRaw,
  INSERT_CHUNK,
  type MessageRow,
  PLACEHOLDERS,
  rowOf,
  toStoredMessage,
} from "./message-rows.ts";
import { messages } from "./schema.ts";
import type { SqlExecutor } from "./sql-engine.ts";

/**
 * A message to append, optionally with a caller-chosen id (appending the same id twice is a no-op)
 * and its token count when the caller already has it (counting a large message takes a while: do it
 * before the write transaction, not inside it).
 */
export type MessageInput = NewMessage & { id?: string; tokenCount?: number };

export interface AppendOptions {
  /** Caller-chosen id; if a message with this id already exists it is returned unchanged. */
  id?: string;
  /** Lease fencing token: the append fails with `conflict` (leaseLost) if a higher one has appended. */
  fence?: number;
}

/** Where a compaction joins its summary to the raw log. */
export interface Boundary {
  cutoffMessageId: string | null;
  cutoffIndex: number;
}

export interface MessageRepository {
  /** Appends one fact; seq is max+1 for the agent, assigned inside the write transaction. */
  append(agentId: string, message: NewMessage, options?: AppendOptions): Promise<StoredMessage>;
  /** Appends several facts atomically, in order. */
  appendMany(
    agentId: string,
    messages: MessageInput[],
    options?: { fence?: number },
  ): Promise<StoredMessage[]>;
  get(id: string): Promise<StoredMessage | null>;
  /** Facts in seq order, after `afterSeq` (exclusive), at most `limit`. */
  list(agentId: string, options?: { afterSeq?: number; limit?: number }): Promise<StoredMessage[]>;
  /** Facts at or after a compaction boundary: by id first, by index (seq) if the id is gone. */
  fromBoundary(agentId: string, boundary: Boundary): Promise<StoredMessage[]>;
  /** Facts up to and including `messageId` (a fork prefix); throws `not_found` for an unknown id. */
  upTo(agentId: string, messageId: string): Promise<StoredMessage[]>;
  last(agentId: string): Promise<StoredMessage | null>;
  /** Id and seq of every fact of `role`, in seq order (user messages: the task and the user's notes). */
  idsOfRole(agentId: string, role: StoredMessage["role"]): Promise<{ id: string; seq: number }[]>;
  count(agentId: string): Promise<number>;
  /** The tool result recorded for `callId`, if any (idempotent tool execution). */
  findByToolCallId(agentId: string, callId: string): Promise<StoredMessage | null>;
}

/**
 * Appends facts inside the caller's write transaction: seq is max+1 for the agent; a caller-chosen id
 * that already exists returns the stored message unchanged (appending the same id twice is a no-op).
 */
// Raw SQL on purpose: this is the hottest write path, and drizzle's builder roughly halves its rate.
export async function appendMessagesIn(
  tx: SqlExecutor,
  context: StoreContext,
  agentId: string,
  inputs: MessageInput[],
  fence: number | undefined,
): Promise<StoredMessage[]> {
  const only = inputs[0];
  if (inputs.length === 1 && only && !only.id) return [await appendOne(tx, context, agentId, only, fence)];
  if (fence !== undefined) await checkFence(tx, agentId, fence);
  const givenIds = inputs.flatMap((input) => (input.id ? [input.id] : []));
  const existing = new Map<string, MessageRow>();
  if (givenIds.length > 0) {
    const found = await tx.execute({
      sql: `SELECT * FROM messages WHERE id IN (${givenIds.map(() => "?").join(", ")})`,
      args: givenIds,
    });
    for (const raw of found.rows) {
      const row = fromRaw(raw);
      if (row.agentId !== agentId) {
        throw new LongrunError("conflict", `message ${row.id} belongs to another agent`);
      }
      existing.set(row.id, row);
    }
  }
  const head = await tx.execute({
    sql: "SELECT max(seq) AS seq FROM messages WHERE agent_id = ?",
    args: [agentId],
  });
  const headSeq = head.rows[0]?.seq;
  let nextSeq = headSeq === null || headSeq === undefined ? 0 : Number(headSeq) + 1;
  const now = context.now();
  const result: StoredMessage[] = [];
  const rows: MessageRow[] = [];
  for (const input of inputs) {
    const known = input.id ? existing.get(input.id) : undefined;
    if (known) {
      result.push(toStoredMessage(known));
      continue;
    }
    const row = rowOf(context, agentId, input, nextSeq, now);
    nextSeq += 1;
    existing.set(row.id, row);
    rows.push(row);
    result.push(toStoredMessage(row));
  }
  for (let start = 0; start < rows.length; start += INSERT_CHUNK) {
    const chunk = rows.slice(start, start + INSERT_CHUNK);
    await tx.execute({
      sql: `INSERT INTO messages (${COLUMNS}) VALUES ${chunk.map(() => PLACEHOLDERS).join(", ")}`,
      args: chunk.flatMap(argsOf),
    });
  }
  return result;
}

/** The common case in one statement: one new fact, its seq taken from the agent's head inside the insert. */
async function appendOne(
  tx: SqlExecutor,
  context: StoreContext,
  agentId: string,
  input: MessageInput,
  fence: number | undefined,
): Promise<StoredMessage> {
  const row = rowOf(context, agentId, { ...input, id: undefined }, 0, context.now());
  // COLUMNS order, with the seq computed from the agent's head inside the insert (the agent id twice).
  const args = argsOf(row);
  args.splice(1, 2, agentId, agentId);
  const values =
    "?, ?, (SELECT coalesce(max(seq), -1) + 1 FROM messages WHERE agent_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?";
  if (fence !== undefined) {
    // The holder's claim recorded its token: the insert itself checks it (no statement of its own).
    const fenced = await tx.execute({
      sql: `INSERT INTO messages (${COLUMNS}) SELECT ${values} WHERE (SELECT fence FROM agents WHERE id = ?) = ? RETURNING seq`,
      args: [...args, agentId, fence],
    });
    if (fenced.rows[0]) return toStoredMessage({ ...row, seq: Number(fenced.rows[0].seq) });
    // Not the recorded token: a newer holder (throws leaseLost) or a holder that never claimed (recorded now).
    await checkFence(tx, agentId, fence);
  }
  const inserted = await tx.execute({
    sql: `INSERT INTO messages (${COLUMNS}) VALUES (${values}) RETURNING seq`,
    args,
  });
  return toStoredMessage({ ...row, seq: Number(inserted.rows[0]?.seq) });
}

/** The append-only conversation facts of each agent. */
export function createMessageRepository(context: StoreContext): MessageRepository {
  const seqOf = async (agentId: string, messageId: string): Promise<number | null> => {
    const rows = await context.read((db) =>
      db
        .select({ seq: messages.seq })
        .from(messages)
        .where(and(eq(messages.id, messageId), eq(messages.agentId, agentId)))
        .limit(1),
    );
    return rows[0]?.seq ?? null;
  };

  const fromSeq = async (agentId: string, startSeq: number): Promise<StoredMessage[]> => {
    const rows = await context.read((db) =>
      db
        .select()
        .from(messages)
        .where(and(eq(messages.agentId, agentId), gte(messages.seq, startSeq)))
        .orderBy(asc(messages.seq)),
    );
    return rows.map(toStoredMessage);
  };

  return {
    async append(agentId, message, options) {
      const input: MessageInput = options?.id ? { ...message, id: options.id } : message;
      const stored = await context.writeRaw((tx) =>
        appendMessagesIn(tx, context, agentId, [input], options?.fence),
      );
      return stored[0]!;
    },
    appendMany(agentId, inputs, options) {
      if (inputs.length === 0) return Promise.resolve([]);
      return context.writeRaw((tx) => appendMessagesIn(tx, context, agentId, inputs, options?.fence));
    },
    async get(id) {
      const rows = await context.read((db) => db.select().from(messages).where(eq(messages.id, id)).limit(1));
      return rows[0] ? toStoredMessage(rows[0]) : null;
    },
    async list(agentId, options) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(messages)
          .where(and(eq(messages.agentId, agentId), gt(messages.seq, options?.afterSeq ?? -1)))
          .orderBy(asc(messages.seq))
          .limit(options?.limit ?? -1),
      );
      return rows.map(toStoredMessage);
    },
    async fromBoundary(agentId, boundary) {
      const anchored = boundary.cutoffMessageId ? await seqOf(agentId, boundary.cutoffMessageId) : null;
      return fromSeq(agentId, anchored ?? boundary.cutoffIndex);
    },
    async upTo(agentId, messageId) {
      const end = await seqOf(agentId, messageId);
      if (end === null)
        throw new LongrunError("not_found", `message ${messageId} not found for agent ${agentId}`);
      const rows = await context.read((db) =>
        db
          .select()
          .from(messages)
          .where(and(eq(messages.agentId, agentId), lte(messages.seq, end)))
          .orderBy(asc(messages.seq)),
      );
      return rows.map(toStoredMessage);
    },
    async last(agentId) {
      const rows = await context.read((db) =>
        db.select().from(messages).where(eq(messages.agentId, agentId)).orderBy(desc(messages.seq)).limit(1),
      );
      return rows[0] ? toStoredMessage(rows[0]) : null;
    },
    idsOfRole(agentId, role) {
      return context.read((db) =>
        db
          .select({ id: messages.id, seq: messages.seq })
          .from(messages)
          .where(and(eq(messages.agentId, agentId), eq(messages.role, role)))
          .orderBy(asc(messages.seq)),
      );
    },
    async count(agentId) {
      const rows = await context.read((db) =>
        db.select({ value: count() }).from(messages).where(eq(messages.agentId, agentId)),
      );
      return rows[0]?.value ?? 0;
    },
    async findByToolCallId(agentId, callId) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(messages)
          .where(
            and(eq(messages.agentId, agentId), eq(messages.toolCallId, callId), eq(messages.role, "tool")),
          )
          .orderBy(asc(messages.seq))
          .limit(1),
      );
      return rows[0] ? toStoredMessage(rows[0]) : null;
    },
  };
}
