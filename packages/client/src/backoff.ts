import { backoffDelay } from "@longrun/protocol";

/** Reconnect delay policy. */
export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 250, maxDelayMs: 10_000 };

/**
 * Delay before reconnect attempt `attempt` (0-based): the protocol's one backoff formula with "equal
 * jitter" (half fixed, half random), so a fleet of clients dropped at once does not reconnect in lockstep.
 */
export function reconnectDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  return backoffDelay(
    attempt + 1,
    { baseMs: options.initialDelayMs, capMs: options.maxDelayMs, jitter: 0.5 },
    random,
  );
}
