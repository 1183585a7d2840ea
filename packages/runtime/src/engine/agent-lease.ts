import { isLeaseLost } from "@longrun/store";
import type { RuntimeDeps } from "./runtime-deps.ts";

/** A held agent lease: its fencing token goes with every append. */
export interface HeldLease {
  token: number;
  release(): Promise<unknown>;
  renew(): Promise<boolean>;
}

/** The lease key of an agent: one step or compaction of one agent at a time, across all workers. */
export const agentLeaseKey = (agentId: string) => `agent:${agentId}`;

/**
 * Takes an agent's lease with a fencing token above every token that has written for the agent, and
 * claims that token in the database before the caller reads anything: an earlier holder still running
 * can append nothing after this point. The database is the authority (agents.fence): a lease store that
 * lost its counter (Redis restarted empty, an embedded restart) can never hand out a token the log
 * would refuse.
 */
export async function acquireAgentLease(
  deps: Pick<RuntimeDeps, "store" | "lease">,
  agentId: string,
  ttlMs: number,
): Promise<HeldLease | null> {
  const agent = await deps.store.agents.get(agentId);
  const lease = await deps.lease.acquire(agentLeaseKey(agentId), ttlMs, { floor: agent?.fence ?? 0 });
  if (!lease) return null;
  try {
    await deps.store.agents.claim(agentId, lease.token, "");
    return lease;
  } catch (error) {
    await lease.release().catch(() => undefined);
    // A newer holder recorded a higher token since the read above: this holder is already stale.
    if (isLeaseLost(error)) return null;
    throw error;
  }
}
