import { acquireAgentLease, type HeldLease } from "../engine/agent-lease.ts";
import type { RuntimeDeps } from "../engine/runtime-deps.ts";
import { GatewayError } from "./gateway-error.ts";

/** A lease a gateway turn holds, renewed in the background; `lost` aborts when a renewal fails. */
export interface TurnLease {
  fence: number;
  lost: AbortSignal;
  release(): Promise<void>;
}

/**
 * Takes a conversation agent's lease, waiting while another request of the same conversation holds
 * it (a client retrying while the first attempt still streams). The fence goes with every append.
 */
export async function holdAgentLease(
  deps: Pick<RuntimeDeps, "store" | "lease">,
  agentId: string,
  options: { leaseMs: number; waitMs: number; signal?: AbortSignal },
): Promise<TurnLease> {
  const deadline = Date.now() + options.waitMs;
  let delay = 25;
  let lease: HeldLease | null = await acquireAgentLease(deps, agentId, options.leaseMs);
  while (!lease) {
    if (Date.now() >= deadline || options.signal?.aborted) {
      throw new GatewayError(
        409,
        "conversation_busy",
        "another request of this conversation is still running",
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 500);
    lease = await acquireAgentLease(deps, agentId, options.leaseMs);
  }
  const held = lease;
  const lost = new AbortController();
  const renewal = setInterval(() => {
    held.renew().then(
      (ok) => {
        if (!ok) lost.abort(new Error(`lease lost: agent ${agentId}`));
      },
      () => undefined,
    );
  }, options.leaseMs / 3);
  renewal.unref();
  let released = false;
  return {
    fence: held.token,
    lost: lost.signal,
    async release() {
      if (released) return;
      released = true;
      clearInterval(renewal);
      await held.release().catch(() => undefined);
    },
  };
}
