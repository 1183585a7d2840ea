import type { Row } from "@libsql/client";
import { type Agent, type AgentInherit, type AgentStatus, LongrunError } from "@longrun/protocol";
import { asc, eq } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { agents } from "./schema.ts";
import type { SqlStatement } from "./sql-engine.ts";

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
  /** A thread fork's root agent: the source thread's agent whose facts are its prefix. */
  forkSourceAgentId?: string | null;
  brief?: string | null;
  spawnCallId?: string | null;
  status?: AgentStatus;
}

/** What a step checks under the lease, in one read: is its cached view of the agent still current? */
export interface AgentProbe {
  agentStatus: AgentStatus;
  fence: number;
  /** Seq of the agent's newest fact, -1 when it has none. */
  lastSeq: number;
  /** The compaction in force (the newest), null when never compacted. */
  compactionId: string | null;
  /** Last change of the agent's plan, TODOs or recent files (0 when never saved). */
  stateUpdatedAt: number;
  /** Status of the given run, null when it does not exist. */
  runStatus: string | null;
  /** Kind of the given run, null when it does not exist. */
  runKind: string | null;
  /** When the given run was asked to stop at its next step boundary, null when it was not. */
  runInterruptRequestedAt: number | null;
}

export interface AgentRepository {
  /** One statement: the figures a step needs to trust (or refresh) its cached context. Null: no agent. */
  probe(agentId: string, runId: string): Promise<AgentProbe | null>;
  /** Records a lease holder's token and returns the probe, in one write (see UnitOfWork.claimAgent). */
  claim(agentId: string, fence: number, runId: string): Promise<AgentProbe>;
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

/** Maps the probe's columns (agent_status, fence, last_seq, compaction_id, state_updated_at, run_status, run_kind, run_interrupt_requested_at). */
export function probeFromRow(row: Row): AgentProbe {
  return {
    agentStatus: String(row.agent_status) as AgentStatus,
    fence: Number(row.fence),
    lastSeq: row.last_seq === null || row.last_seq === undefined ? -1 : Number(row.last_seq),
    compactionId: typeof row.compaction_id === "string" ? row.compaction_id : null,
    stateUpdatedAt:
      row.state_updated_at === null || row.state_updated_at === undefined ? 0 : Number(row.state_updated_at),
    runStatus: typeof row.run_status === "string" ? row.run_status : null,
    runKind: typeof row.run_kind === "string" ? row.run_kind : null,
    runInterruptRequestedAt:
      row.run_interrupt_requested_at === null || row.run_interrupt_requested_at === undefined
        ? null
        : Number(row.run_interrupt_requested_at),
  };
}

/** The claim: records a holder's token unless a higher one is recorded, returning the probe's columns. */
export function claimStatement(agentId: string, fence: number, runId: string): SqlStatement {
  return {
    sql: `UPDATE agents SET fence = ? WHERE id = ? AND fence <= ?
          RETURNING status AS agent_status, fence,
            (SELECT max(seq) FROM messages WHERE agent_id = agents.id) AS last_seq,
            (SELECT id FROM compactions WHERE agent_id = agents.id ORDER BY created_at DESC, rowid DESC LIMIT 1) AS compaction_id,
            (SELECT updated_at FROM agent_state WHERE agent_id = agents.id) AS state_updated_at,
            (SELECT status FROM runs WHERE id = ?) AS run_status,
            (SELECT kind FROM runs WHERE id = ?) AS run_kind,
            (SELECT interrupt_requested_at FROM runs WHERE id = ?) AS run_interrupt_requested_at`,
    args: [fence, agentId, fence, runId, runId, runId],
  };
}

/** Agents and sub-agents of a thread. */
export function createAgentRepository(context: StoreContext): AgentRepository {
  const get = async (id: string): Promise<AgentRecord | null> => {
    const rows = await context.read((db) => db.select().from(agents).where(eq(agents.id, id)).limit(1));
    return rows[0] ?? null;
  };
  return {
    async probe(agentId, runId) {
      const result = await context.readRaw((reader) =>
        reader.execute({
          sql: `SELECT a.status AS agent_status, a.fence AS fence,
                  (SELECT max(seq) FROM messages WHERE agent_id = a.id) AS last_seq,
                  (SELECT id FROM compactions WHERE agent_id = a.id ORDER BY created_at DESC, rowid DESC LIMIT 1) AS compaction_id,
                  (SELECT updated_at FROM agent_state WHERE agent_id = a.id) AS state_updated_at,
                  (SELECT status FROM runs WHERE id = ?) AS run_status,
                  (SELECT kind FROM runs WHERE id = ?) AS run_kind,
                  (SELECT interrupt_requested_at FROM runs WHERE id = ?) AS run_interrupt_requested_at
                FROM agents a WHERE a.id = ?`,
          args: [runId, runId, runId, agentId],
        }),
      );
      const row = result.rows[0];
      return row ? probeFromRow(row) : null;
    },
    async claim(agentId, fence, runId) {
      // The common case is one statement in SQLite's implicit transaction; the refusal path (unknown
      // agent, newer holder) gets its explanation in a transaction of its own.
      const claimed = await context.writeOne(claimStatement(agentId, fence, runId));
      const row = claimed.rows[0];
      if (row) return probeFromRow(row);
      return context.transact((unit) => unit.claimAgent(agentId, fence, runId));
    },
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
        forkSourceAgentId: input.forkSourceAgentId ?? null,
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
