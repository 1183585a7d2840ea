import { leaseLost } from "@longrun/protocol";
import type { LeaseHandle } from "./lease.ts";

/** Options for keeping a lease alive while its holder works. */
export interface KeepLeaseOptions {
  /** The ttl each renewal sets. */
  ttlMs: number;
  /** Time between renewals; default a third of the ttl, so two can fail before the lease lapses. */
  intervalMs?: number;
}

/** A running keep-alive: `signal` aborts (with a lease-lost error) when the lease can no longer be held. */
export interface LeaseKeeper {
  readonly signal: AbortSignal;
  /** Stops renewing (does not release the lease). */
  stop(): void;
}

/**
 * Renews a lease in the background: the one renewal loop of every lease holder (agent steps, compactions,
 * gateway turns). A renewal that answers false means someone else holds it now; one
 * that throws (Redis unreachable) is retried until the last successful renewal's ttl has run out.
 */
export function keepLease(handle: LeaseHandle, options: KeepLeaseOptions): LeaseKeeper {
  const controller = new AbortController();
  const intervalMs = options.intervalMs ?? Math.max(1, Math.floor(options.ttlMs / 3));
  let heldUntil = Date.now() + options.ttlMs;
  let renewing = false;

  const lose = (detail: string) => {
    clearInterval(timer);
    controller.abort(leaseLost(`${handle.key} (token ${handle.token}): ${detail}`, { key: handle.key }));
  };

  const renew = async () => {
    if (renewing || controller.signal.aborted) return;
    renewing = true;
    const startedAt = Date.now();
    try {
      if (await handle.renew(options.ttlMs)) heldUntil = startedAt + options.ttlMs;
      else lose("taken over or expired");
    } catch (error) {
      if (Date.now() >= heldUntil) lose(error instanceof Error ? error.message : String(error));
    } finally {
      renewing = false;
    }
  };

  // renew() settles every error itself (a failed renewal within the ttl is retried, past it the lease
  // is lost and the holder logs that): nothing reaches this catch.
  const timer = setInterval(() => {
    renew().catch(() => undefined);
  }, intervalMs);
  timer.unref();

  return {
    signal: controller.signal,
    stop() {
      clearInterval(timer);
    },
  };
}
