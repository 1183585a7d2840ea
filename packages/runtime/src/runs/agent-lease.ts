import { errorFields, isLeaseLost, type Logger } from "@longrun/protocol";
import { keepLease } from "@longrun/queue";
import type { AgentProbe } from "@longrun/store";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** The lease key of an agent: one step, compaction or client turn of one agent at a time, across all workers. */
export const agentLeaseKey = (agentId: string) => `agent:${agentId}`;

/** An agent's lease while its holder works: the fence goes with every append. */
export interface HeldAgentLease {
  fence: number;
  /** The agent's state as the claim found it (run status, last seq, compaction in force). */
  probe: AgentProbe;
  /** Aborted when the lease is lost (taken over, or not renewable); the reason is a lease-lost error. */
  lost: AbortSignal;
  /** Stops renewing and gives the lease up (idempotent). */
  release(): Promise<void>;
}

/**
 * Takes an agent's lease with a fencing token above every token that has written for the agent, and
 * claims that token in the database before the caller reads anything: an earlier holder still running
 * can append nothing after this point. The database is the authority (agents.fence): when the lease
 * store hands out a token below it (it lost its counter: Redis restarted empty, an embedded restart),
 * the lease is taken again above what the log recorded. Renewed in the background by queue's
 * `keepLease` until released. Null while someone else holds it (or keeps writing above this holder).
 */
export async function holdAgentLease(
  deps: Pick<RuntimeDeps, "store" | "lease" | "log">,
  agentId: string,
  options: { ttlMs: number; runId?: string; floor?: number },
): Promise<HeldAgentLease | null> {
  let floor = options.floor ?? (await deps.store.agents.get(agentId))?.fence ?? 0;
  for (let tries = 1; ; tries++) {
    const lease = await deps.lease.acquire(agentLeaseKey(agentId), options.ttlMs, { floor });
    if (!lease) return null;
    let probe: AgentProbe;
    try {
      probe = await deps.store.agents.claim(agentId, lease.token, options.runId ?? "");
    } catch (error) {
      await releaseOrExpire(lease, deps.log, agentId);
      if (!isLeaseLost(error)) throw error;
      // Refused twice: a newer holder keeps writing; to this caller the agent is busy.
      if (tries >= 2) return null;
      const recorded = (error.details as { currentFence?: unknown }).currentFence;
      floor = typeof recorded === "number" ? recorded : floor;
      continue;
    }
    const keeper = keepLease(lease, { ttlMs: options.ttlMs });
    let released = false;
    // Lost while held (taken over, or not renewable in time): one line, the step that held it aborts.
    keeper.signal.addEventListener(
      "abort",
      () => {
        if (released) return;
        deps.log.warn(
          { agentId, fence: lease.token, ...errorFields(keeper.signal.reason), lease: "lost" },
          "agent lease lost: its work is aborted",
        );
      },
      { once: true },
    );
    return {
      fence: lease.token,
      probe,
      lost: keeper.signal,
      async release() {
        if (released) return;
        released = true;
        keeper.stop();
        await releaseOrExpire(lease, deps.log, agentId);
      },
    };
  }
}

/** Gives a lease up; one that cannot be released (Redis away) lapses by its ttl, which is said once. */
async function releaseOrExpire(lease: { release(): Promise<unknown> }, log: Logger, agentId: string) {
  try {
    await lease.release();
  } catch (error) {
    log.warn({ agentId, ...errorFields(error) }, "agent lease not released: it expires by its ttl");
  }
}
