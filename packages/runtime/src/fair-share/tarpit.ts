import { setTimeout as sleepFor } from "node:timers/promises";
import type { TenantLimits } from "./tenant-limits.ts";

/** Longest a refusal is held before it is answered. */
export const TARPIT_MAX_HOLD_MS = 1_000;
/** Refusals of one tenant held at once; past it the next are answered at once. */
export const TARPIT_MAX_HELD_PER_TENANT = 64;

/**
 * Holds a tenant's `rate_limited` refusals before they are answered, so that a client looping on 429s
 * without reading `Retry-After` cannot keep the server busy answering them: 20 such clients cost about
 * as many answers a second as the tenant's rate, not one each per turn of the event loop. The n-th
 * refusal held at once (from 0) waits until its bucket would have a token for it and for the n held
 * before it — `wait + n / rate` — at most `maxHoldMs`; so held refusals come back about as fast as the
 * bucket refills. A client that honours `Retry-After` loses little: it would have waited that long.
 * At most `maxHeldPerTenant` of one tenant are held (each holds a socket); past it, `hold` answers
 * undefined and the refusal is answered at once.
 */
export interface Tarpit {
  /** Resolves when the refusal of a request whose bucket has a token in `waitMs` may be answered. */
  hold(tenantId: string, waitMs: number): Promise<void> | undefined;
  /** Refusals of this tenant held now. */
  held(tenantId: string): number;
}

export function createTarpit(
  limitsOf: (tenantId: string) => Pick<TenantLimits, "requestsPerSecond">,
  options: {
    maxHoldMs?: number;
    maxHeldPerTenant?: number;
    /** The timer: injected by tests, which release holds on their own events. */
    sleep?: (ms: number) => Promise<unknown>;
  } = {},
): Tarpit {
  const maxHoldMs = options.maxHoldMs ?? TARPIT_MAX_HOLD_MS;
  const maxHeld = options.maxHeldPerTenant ?? TARPIT_MAX_HELD_PER_TENANT;
  // Unreferenced: held refusals never keep a process alive that is shutting down (its sockets are closed).
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms, undefined, { ref: false }));
  // Only tenants with a refusal held: an entry goes when its last hold ends.
  const heldBy = new Map<string, number>();

  const release = (tenantId: string) => {
    const count = (heldBy.get(tenantId) ?? 1) - 1;
    if (count > 0) heldBy.set(tenantId, count);
    else heldBy.delete(tenantId);
  };

  return {
    hold(tenantId, waitMs) {
      const count = heldBy.get(tenantId) ?? 0;
      if (count >= maxHeld || maxHoldMs <= 0) return undefined;
      const { requestsPerSecond } = limitsOf(tenantId);
      const holdMs = Math.min(maxHoldMs, Math.ceil(waitMs + (count * 1000) / requestsPerSecond));
      heldBy.set(tenantId, count + 1);
      return sleep(holdMs).then(
        () => release(tenantId),
        (error: unknown) => {
          release(tenantId);
          throw error;
        },
      );
    },
    held: (tenantId) => heldBy.get(tenantId) ?? 0,
  };
}
