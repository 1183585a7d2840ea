import { type Agent, type AgentInherit, type AgentStatus, LongrunError } from "@longrun/protocol";
import { asc, eq } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { agents } from "./schema.ts";

/** An agent row: the protocol's Agent plus the lease fence. */
export type AgentRecord = Agent & { fence: number };

export interface CreateAgentInput {
  id?: string;
  threadId: string;
  parentAgentId?: string | null;
  name: string;
  inherit?: AgentInherit;
  forkMessageId?: string | null;
  forkCompactionId?: string | null;
  brief?: string | null;
  spawnCallId?: string | null;
  status?: AgentStatus;
}

export interface AgentRepository {
  create(input: CreateAgentInput): Promise<AgentRecord>;
  get(id: string): Promise<AgentRecord | null>;
  /** A thread's agents in creation order (the root agent first). */
  listByThread(threadId: string): Promise<AgentRecord[]>;
  /** Direct sub-agents of `agentId`, in creation order. */
  children(agentId: string): Promise<AgentRecord[]>;
  /** Parent chain of `agentId`, root first, excluding the agent itself. */
  ancestors(agentId: string): Promise<AgentRecord[]>;
  setStatus(id: string, status: AgentStatus): Promise<AgentRecord>;
}

/** Agents and sub-agents of a thread. */
export function createAgentRepository(context: StoreContext): AgentRepository {
  const get = async (id: string): Promise<AgentRecord | null> => {
    const rows = await context.read((db) => db.select().from(agents).where(eq(agents.id, id)).limit(1));
    return rows[0] ?? null;
  };
  return {
    async create(input) {
      const now = context.now();
      const row: AgentRecord = {
        id: input.id ?? newId(now),
        threadId: input.threadId,
        parentAgentId: input.parentAgentId ?? null,
        name: input.name,
        inherit: input.inherit ?? "fresh",
        forkMessageId: input.forkMessageId ?? null,
        forkCompactionId: input.forkCompactionId ?? null,
        brief: input.brief ?? null,
        spawnCallId: input.spawnCallId ?? null,
        status: input.status ?? "idle",
        fence: 0,
        createdAt: now,
      };
      await context.write((tx) => tx.insert(agents).values(row));
      return row;
    },
    get,
    listByThread(threadId) {
      return context.read((db) =>
        db
          .select()
          .from(agents)
          .where(eq(agents.threadId, threadId))
          .orderBy(asc(agents.createdAt), asc(agents.id)),
      );
    },
    children(agentId) {
      return context.read((db) =>
        db
          .select()
          .from(agents)
          .where(eq(agents.parentAgentId, agentId))
          .orderBy(asc(agents.createdAt), asc(agents.id)),
      );
    },
    async ancestors(agentId) {
      const chain: AgentRecord[] = [];
      const seen = new Set<string>([agentId]);
      let parentId = (await get(agentId))?.parentAgentId ?? null;
      // Trees are shallow; the visited set guards against a corrupted cycle.
      while (parentId && !seen.has(parentId)) {
        seen.add(parentId);
        const parent = await get(parentId);
        if (!parent) break;
        chain.unshift(parent);
        parentId = parent.parentAgentId;
      }
      return chain;
    },
    async setStatus(id, status) {
      const rows = await context.write((tx) =>
        tx.update(agents).set({ status }).where(eq(agents.id, id)).returning(),
      );
      const row = rows[0];
      if (!row) throw new LongrunError("not_found", `agent ${id} not found`);
      return row;
    },
  };
}
