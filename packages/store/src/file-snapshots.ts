import { and, asc, desc, eq } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { blobs, fileSnapshots } from "./schema.ts";
import type { SqlExecutor } from "./sql-engine.ts";

/**
 * One version of a file: the sha256 (hex) of its bytes and its size; `bytes` null when it was over the
 * size cap (only hash and size are kept).
 */
export interface FileContent {
  hash: string;
  size: number;
  bytes: Uint8Array | null;
}

/** What one tool call did to one path: `null` is "no file there". */
export interface FileChange {
  path: string;
  /** The file before the call; `undefined` when the tool could not tell (no `before` is recorded). */
  before?: FileContent | null;
  after: FileContent | null;
}

/** A call's changes, linked to the call's result fact (written in the same transaction). */
export interface FileChangesInput {
  tenantId: string;
  threadId: string;
  agentId: string;
  /** The tool result fact of the call. */
  messageId: string;
  seq: number;
  callId: string;
  changes: readonly FileChange[];
}

/** One snapshot row: a path's content after a call (or before the thread first changed it). */
export interface FileSnapshot {
  id: string;
  threadId: string;
  agentId: string;
  messageId: string;
  seq: number;
  callId: string;
  path: string;
  phase: "before" | "after";
  /** Null: no file at that path. */
  hash: string | null;
  size: number | null;
  tooLarge: boolean;
  createdAt: number;
}

export interface FileSnapshotRepository {
  /** Every snapshot of a thread, in the order recorded (a fork reads this once). */
  list(threadId: string): Promise<FileSnapshot[]>;
  /** The newest `after` snapshot of a path in a thread, optionally only those one agent made. */
  latest(threadId: string, path: string, options?: { agentId?: string }): Promise<FileSnapshot | null>;
  /** A stored content by hash; null when unknown or kept as hash and size only (too large). */
  blob(tenantId: string, hash: string): Promise<Uint8Array | null>;
  /** Bytes and rows a tenant's stored contents take (for measurements and operators). */
  blobUsage(tenantId: string): Promise<{ blobs: number; bytes: number }>;
}

type Row = typeof fileSnapshots.$inferSelect;

const toSnapshot = (row: Row): FileSnapshot => ({ ...row, phase: row.phase });

async function putBlob(tx: SqlExecutor, tenantId: string, content: FileContent, now: number) {
  // Stored once per tenant and content. A content first kept as hash only (over an earlier, lower cap)
  // gets its bytes when it is written again under a cap that admits it.
  await tx.execute({
    sql: `INSERT INTO blobs (tenant_id, hash, size, bytes, created_at) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (tenant_id, hash) DO UPDATE SET bytes = excluded.bytes
          WHERE blobs.bytes IS NULL AND excluded.bytes IS NOT NULL`,
    args: [tenantId, content.hash, content.size, content.bytes, now],
  });
}

/**
 * Records a call's file changes inside the caller's write transaction: the content blobs (deduplicated)
 * and one `after` row per path, preceded by a `before` row the first time the thread changes that path.
 */
export async function recordFileChangesIn(
  tx: SqlExecutor,
  now: number,
  input: FileChangesInput,
): Promise<void> {
  for (const change of input.changes) {
    const rows: Array<{ phase: "before" | "after"; content: FileContent | null }> = [];
    if (change.before !== undefined) {
      const seen = await tx.execute({
        sql: "SELECT 1 FROM file_snapshots WHERE thread_id = ? AND path = ? LIMIT 1",
        args: [input.threadId, change.path],
      });
      if (seen.rows.length === 0) rows.push({ phase: "before", content: change.before });
    }
    rows.push({ phase: "after", content: change.after });
    for (const { phase, content } of rows) {
      if (content) await putBlob(tx, input.tenantId, content, now);
      await tx.execute({
        sql: `INSERT INTO file_snapshots (id, thread_id, agent_id, message_id, seq, call_id, path, phase, hash,
              size, too_large, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        args: [
          newId(now),
          input.threadId,
          input.agentId,
          input.messageId,
          input.seq,
          input.callId,
          change.path,
          phase,
          content?.hash ?? null,
          content?.size ?? null,
          content !== null && content.bytes === null ? 1 : 0,
          now,
        ],
      });
    }
  }
}

/** Reads of the workspace snapshots (writes go through the unit of work, with the call's result). */
export function createFileSnapshotRepository(context: StoreContext): FileSnapshotRepository {
  return {
    async list(threadId) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(fileSnapshots)
          .where(eq(fileSnapshots.threadId, threadId))
          .orderBy(asc(fileSnapshots.id)),
      );
      return rows.map(toSnapshot);
    },
    async latest(threadId, path, options = {}) {
      const rows = await context.read((db) =>
        db
          .select()
          .from(fileSnapshots)
          .where(
            and(
              eq(fileSnapshots.threadId, threadId),
              eq(fileSnapshots.path, path),
              eq(fileSnapshots.phase, "after"),
              options.agentId === undefined ? undefined : eq(fileSnapshots.agentId, options.agentId),
            ),
          )
          .orderBy(desc(fileSnapshots.id))
          .limit(1),
      );
      return rows[0] ? toSnapshot(rows[0]) : null;
    },
    async blob(tenantId, hash) {
      const rows = await context.read((db) =>
        db
          .select({ bytes: blobs.bytes })
          .from(blobs)
          .where(and(eq(blobs.tenantId, tenantId), eq(blobs.hash, hash))),
      );
      const bytes = rows[0]?.bytes;
      return bytes ? new Uint8Array(bytes) : null;
    },
    async blobUsage(tenantId) {
      const result = await context.readRaw((reader) =>
        reader.execute({
          sql: "SELECT count(*) AS n, coalesce(sum(length(bytes)), 0) AS bytes FROM blobs WHERE tenant_id = ?",
          args: [tenantId],
        }),
      );
      const row = result.rows[0];
      return { blobs: Number(row?.n ?? 0), bytes: Number(row?.bytes ?? 0) };
    },
  };
}
