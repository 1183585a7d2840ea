import { LongrunError, type Run, type RunStatus } from "@longrun/protocol";
import { and, asc, eq, inArray } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { runs } from "./schema.ts";

/**
 * A run row: the protocol's Run plus the coordinator's links (parent run, queue job) and a pending
 * request to stop at the next step boundary.
 */
export type RunRecord = Run & {
  parentRunId: string | null;
  jobId: string | null;
  interruptRequestedAt: number | null;
};

export interface CreateRunInput {
  id?: string;
  threadId: string;
  agentId: string;
  kind: Run["kind"];
  status?: RunStatus;
  parentRunId?: string | null;
  jobId?: string | null;
  input?: string | null;
}

export type RunPatch = Partial<
  Pick<
    RunRecord,
    "status" | "error" | "startedAt" | "finishedAt" | "jobId" | "input" | "interruptRequestedAt"
  >
>;

export interface RunRepository {
  create(input: CreateRunInput): Promise<RunRecord>;
  get(id: string): Promise<RunRecord | null>;
  /** Throws `not_found` for an unknown id. */
  update(id: string, patch: RunPatch): Promise<RunRecord>;
  /** A thread's runs, oldest first. */
  listByThread(threadId: string): Promise<RunRecord[]>;
  /** Runs of a thread still queued, running, waiting or stuck, oldest first. */
  active(threadId: string): Promise<RunRecord[]>;
  /** Active runs of every thread, oldest first (the reconciler's scan). */
  listActive(options?: { limit?: number }): Promise<RunRecord[]>;
  /**
   * A tenant's load, from its top-level runs (sub-agents' runs belong to their parent's): the threads
   * with an active run, and the runs queued behind the first active run of their thread.
   */
  tenantLoad(tenantId: string): Promise<{ activeThreads: number; queuedRuns: number }>;
  /** Stuck runs of each of `threadIds` that has any (by the thread-and-status index: no other thread is read). */
  stuckByThread(threadIds: readonly string[]): Promise<Map<string, number>>;
}

/** Statuses of a run that has not ended. */
export const ACTIVE_RUN_STATUSES: RunStatus[] = ["queued", "running", "waiting", "stuck"];
const ACTIVE = ACTIVE_RUN_STATUSES;

/** Runs: one unit of requested work on a thread (a message, a compaction, a spawn, an approval). */
export function createRunRepository(context: StoreContext): RunRepository {
  return {
    async create(input) {
      const now = context.now();
      const row: RunRecord = {
        id: input.id ?? newId(now),
        threadId: input.threadId,
        agentId: input.agentId,
        kind: input.kind,
        status: input.status ?? "queued",
        error: null,
        parentRunId: input.parentRunId ?? null,
        jobId: input.jobId ?? null,
        input: input.input ?? null,
        interruptRequestedAt: null,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
      };
      await context.write((tx) => tx.insert(runs).values(row));
      return row;
    },
    async get(id) {
      const rows = await context.read((db) => db.select().from(runs).where(eq(runs.id, id)).limit(1));
      return rows[0] ?? null;
    },
    async update(id, patch) {
      const rows = await context.write((tx) => tx.update(runs).set(patch).where(eq(runs.id, id)).returning());
      const row = rows[0];
      if (!row) throw new LongrunError("not_found", `run ${id} not found`);
      return row;
    },
    listByThread(threadId) {
      return context.read((db) =>
        db.select().from(runs).where(eq(runs.threadId, threadId)).orderBy(asc(runs.createdAt), asc(runs.id)),
      );
    },
    active(threadId) {
      return context.read((db) =>
        db
          .select()
          .from(runs)
          .where(and(eq(runs.threadId, threadId), inArray(runs.status, ACTIVE)))
          .orderBy(asc(runs.createdAt), asc(runs.id)),
      );
    },
    listActive(options = {}) {
      return context.read((db) =>
        db
          .select()
          .from(runs)
          .where(inArray(runs.status, ACTIVE))
          .orderBy(asc(runs.createdAt), asc(runs.id))
          .limit(options.limit ?? 10_000),
      );
    },
    async tenantLoad(tenantId) {
      // Asked by every run admission, refused ones included: a statement prepared once.
      const result = await context.readRaw((reader) =>
        reader.execute({
          sql: `SELECT count(*) AS active FROM runs JOIN threads ON threads.id = runs.thread_id
                WHERE threads.tenant_id = ? AND runs.status IN (${ACTIVE.map(() => "?").join(", ")})
                  AND runs.parent_run_id IS NULL
                GROUP BY runs.thread_id`,
          args: [tenantId, ...ACTIVE],
        }),
      );
      const perThread = result.rows.map((row) => ({ active: Number(row.active) }));
      return {
        activeThreads: perThread.length,
        queuedRuns: perThread.reduce((sum, thread) => sum + thread.active - 1, 0),
      };
    },
    async stuckByThread(threadIds) {
      if (threadIds.length === 0) return new Map();
      // One prepared statement for any number of ids (a JSON array), not one SQL text per list length.
      const result = await context.readRaw((reader) =>
        reader.execute({
          sql: `SELECT thread_id, count(*) AS stuck FROM runs
                WHERE status = 'stuck' AND thread_id IN (SELECT value FROM json_each(?))
                GROUP BY thread_id`,
          args: [JSON.stringify(threadIds)],
        }),
      );
      return new Map(result.rows.map((row) => [String(row.thread_id), Number(row.stuck)]));
    },
  };
}
