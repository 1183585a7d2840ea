/** Reconnect delay policy. */
export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 250, maxDelayMs: 10_000 };

/**
 * Delay before reconnect attempt `attempt` (0-based): exponential, capped, with "equal jitter" (half fixed,
 * half random) so a fleet of clients dropped at once does not reconnect in lockstep.
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
