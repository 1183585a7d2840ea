import type { ProjectionMemo, ReductionCache } from "@longrun/compaction";
import type { StoredMessage } from "@longrun/protocol";
import type { AgentProbe } from "@longrun/store";
import { LRUCache } from "lru-cache";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { type AgentContext, loadAgentContext } from "./agent-context.ts";

/**
 * An agent's context as a worker keeps it between steps: read once, then extended with the facts the
 * worker appends itself. It is trusted only while a probe (one read under the lease) shows the log,
 * the compaction in force and the working state unchanged since; otherwise it is read again.
 */
export interface AgentSession {
  context: AgentContext;
  /** Seq of the newest fact in `context.facts` (or of the boundary's predecessor), -1 for none. */
  lastSeq: number;
  compactionId: string | null;
  stateUpdatedAt: number;
  /** The highest fence this process knows for the agent (the floor of its next lease). */
  fence: number;
  /**
   * What the agent's last model call sent (cache-stable projection); undefined: not known in this
   * process yet, folded from the facts at the next step.
   */
  memo?: ProjectionMemo | null;
  /** Serialized parts of the agent's last model request in this process (what its prefix cache holds). */
  lastRequestParts?: string[] | null;
  /** Per-fact stage results of this agent's earlier projections (reused, never re-derived). */
  reductions?: ReductionCache;
  /**
   * This process's last ask for a background summary: on which compaction (null: none) and at what
   * pressure. It asks again on the same compaction only once the request grew (the job may have found
   * that a compaction then would make no progress); undefined: not yet.
   */
  preparedAsk?: { on: string | null; tokens: number };
  /**
   * Seq of the newest fact when the provider refused the reasoning state replayed (invalid_encrypted_content):
   * state on facts up to it is not sent again in this process.
   */
  reasoningRefusedThrough?: number;
  /** Set when another part of the runtime (the coordinator) wrote facts: read the log again. */
  stale?: boolean;
}

/** Appends a fact the session's own worker wrote (the log and the session stay in step). */
export function recordFact(session: AgentSession, fact: StoredMessage): void {
  session.context = { ...session.context, facts: [...session.context.facts, fact] };
  session.lastSeq = fact.seq;
}

/** Sessions of the agents this process ran recently (bounded: the least recently used goes first). */
export class SessionCache {
  readonly #sessions: LRUCache<string, AgentSession>;
  constructor(limit = 256) {
    this.#sessions = new LRUCache({ max: limit });
  }

  get(agentId: string): AgentSession | undefined {
    return this.#sessions.get(agentId);
  }

  set(agentId: string, session: AgentSession): void {
    this.#sessions.set(agentId, session);
  }

  drop(agentId: string): void {
    this.#sessions.delete(agentId);
  }

  get size(): number {
    return this.#sessions.size;
  }
}

/** True when the cached session still describes the agent the probe read. */
export function sessionIsCurrent(session: AgentSession, probe: AgentProbe): boolean {
  return (
    session.lastSeq === probe.lastSeq &&
    session.compactionId === probe.compactionId &&
    session.stateUpdatedAt === probe.stateUpdatedAt
  );
}

/** Reads an agent's context from the log and wraps it as a session. */
export async function openSession(
  deps: RuntimeDeps,
  agentId: string,
  probe: AgentProbe,
): Promise<AgentSession> {
  const context = await loadAgentContext(deps, agentId);
  const last = context.facts.at(-1);
  return {
    context,
    lastSeq: last ? last.seq : probe.lastSeq,
    compactionId: context.compaction?.id ?? null,
    stateUpdatedAt: context.state.updatedAt,
    fence: probe.fence,
  };
}
