import { type Backoff, backoffDelay } from "@longrun/protocol";
import { holdAgentLease } from "../runs/agent-lease.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { abortableSleep } from "../step/provider-retry.ts";
import { ClientTurnError } from "./client-turn-error.ts";

/** A lease a client turn holds, renewed in the background; `lost` aborts when a renewal fails. */
export interface TurnLease {
  fence: number;
  lost: AbortSignal;
  release(): Promise<void>;
}

/** How often a turn looks again while another request of its conversation holds the agent. */
const LEASE_WAIT: Backoff = { baseMs: 25, capMs: 500, jitter: 0 };

/**
 * Takes a conversation agent's lease, waiting while another request of the same conversation holds
 * it (a client retrying while the first attempt still streams). The fence goes with every append.
 */
export async function holdTurnLease(
  deps: Pick<RuntimeDeps, "store" | "lease" | "log">,
  agentId: string,
  options: { leaseMs: number; waitMs: number; signal?: AbortSignal },
): Promise<TurnLease> {
  const deadline = Date.now() + options.waitMs;
  for (let retry = 1; ; retry++) {
    const lease = await holdAgentLease(deps, agentId, { ttlMs: options.leaseMs });
    if (lease) return { fence: lease.fence, lost: lease.lost, release: lease.release };
    if (Date.now() >= deadline || options.signal?.aborted) {
      throw new ClientTurnError(
        409,
        "conversation_busy",
        "another request of this conversation is still running",
      );
    }
    // An abort ends the wait early; the next pass sees the signal and answers busy.
    await abortableSleep(backoffDelay(retry, LEASE_WAIT), options.signal).catch(() => undefined);
  }
}
