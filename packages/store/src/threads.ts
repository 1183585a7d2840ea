import { LongrunError, type ModelProfile, type Thread, type ThreadStatus } from "@longrun/protocol";
import { eq, inArray, or, sql } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { threadFromRow } from "./rows.ts";
import { threads } from "./schema.ts";

export interface CreateThreadInput {
  id?: string;
  tenantId: string;
  title: string;
  workspaceDir: string;
  modelProfile: ModelProfile;
  status?: ThreadStatus;
  forkedFromThreadId?: string | null;
}

export type ThreadPatch = Partial<
  Pick<Thread, "title" | "workspaceDir" | "modelProfile" | "status" | "rewoundToThreadId">
>;

export interface ThreadRepository {
  create(input: CreateThreadInput): Promise<Thread>;
  get(id: string): Promise<Thread | null>;
  /** A tenant's threads, newest first. */
  list(tenantId: string, options?: { limit?: number }): Promise<Thread[]>;
  /** Applies `patch` and bumps `updatedAt`; throws `not_found` for an unknown id. */
  update(id: string, patch: ThreadPatch): Promise<Thread>;
  setStatus(id: string, status: ThreadStatus): Promise<Thread>;
  /**
   * Tenants whose threads use `dir` (an absolute, normalized path), a folder inside it, or a folder that
   * contains it: who would share files with a new thread there.
   */
  workspaceTenants(dir: string): Promise<string[]>;
}

/** Threads: a tenant's conversations, each with a workspace and a model profile. */
export function createThreadRepository(context: StoreContext): ThreadRepository {
  const update = async (id: string, patch: ThreadPatch): Promise<Thread> => {
    const rows = await context.write((tx) =>
      tx
        .update(threads)
        .set({ ...patch, updatedAt: context.now() })
        .where(eq(threads.id, id))
        .returning(),
    );
    const row = rows[0];
    if (!row) throw new LongrunError("not_found", `thread ${id} not found`);
    return row;
  };
  return {
    async create(input) {
      const now = context.now();
      const row = {
        id: input.id ?? newId(now),
        tenantId: input.tenantId,
        title: input.title,
        workspaceDir: input.workspaceDir,
        modelProfile: input.modelProfile,
        status: input.status ?? "idle",
        forkedFromThreadId: input.forkedFromThreadId ?? null,
        rewoundToThreadId: null,
        createdAt: now,
        updatedAt: now,
      } satisfies Thread;
      await context.write((tx) => tx.insert(threads).values(row));
      return row;
    },
    async get(id) {
      const rows = await context.read((db) => db.select().from(threads).where(eq(threads.id, id)).limit(1));
      return rows[0] ?? null;
    },
    async list(tenantId, options) {
      // The dashboard polls this and a busy tenant may send it 50 times a second: a prepared statement.
      const result = await context.readRaw((reader) =>
        reader.execute({
          sql: `SELECT * FROM threads WHERE tenant_id = ? ORDER BY created_at DESC, id DESC LIMIT ?`,
          args: [tenantId, options?.limit ?? -1],
        }),
      );
      return result.rows.map(threadFromRow);
    },
    update,
    setStatus: (id, status) => update(id, { status }),
    async workspaceTenants(dir) {
      const ancestors = ancestorsOf(dir);
      // A prefix comparison, not LIKE: folder names may contain % and _.
      const inside = `${dir.replace(/\/+$/, "")}/`;
      const rows = await context.read((db) =>
        db
          .selectDistinct({ tenantId: threads.tenantId })
          .from(threads)
          .where(
            or(
              inArray(threads.workspaceDir, ancestors),
              sql`substr(${threads.workspaceDir}, 1, ${inside.length}) = ${inside}`,
            ),
          ),
      );
      return rows.map((row) => row.tenantId);
    },
  };
}

/** `/a/b/c` → `/a/b/c`, `/a/b`, `/a`, `/`. */
function ancestorsOf(dir: string): string[] {
  const parts = dir.split("/").filter((part) => part.length > 0);
  const result = ["/"];
  for (let index = 1; index <= parts.length; index++) result.push(`/${parts.slice(0, index).join("/")}`);
  return result;
}
