/** Exponential backoff: `baseMs`, doubling with each retry up to `capMs`; `jitter` (0–1) is the random share. */
export interface Backoff {
  baseMs: number;
  capMs: number;
  /** 0: fixed delays; 0.5: "equal jitter" (half fixed, half random); 1: "full jitter". */
  jitter: number;
}

/**
 * The delay before retry `retry` (1 for the first retry): min(capMs, baseMs · 2^(retry − 1)), of which
 * the `jitter` share is random, so processes or clients that failed together do not retry in lockstep.
 * The one backoff formula of every package (queue retries, provider calls, store busy retries, the
 * breaker's cooldown, lease waits, the SDK's reconnects).
 */
export function backoffDelay(retry: number, backoff: Backoff, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(0, retry - 1), 40);
  const ceiling = Math.min(backoff.capMs, backoff.baseMs * 2 ** exponent);
  const jitter = Math.min(1, Math.max(0, backoff.jitter));
  return Math.floor(ceiling * (1 - jitter + jitter * random()));
}
