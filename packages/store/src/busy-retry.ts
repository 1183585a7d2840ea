import { setTimeout as delay } from "node:timers/promises";
import { type Backoff, backoffDelay } from "@longrun/protocol";

/** How busy/locked errors are retried everywhere in the store (writes, reads, open, migrations). */
export interface BusyRetryOptions {
  attempts: number;
  /** Called after a retryable failure, before the backoff: typically reopens the connection. */
  onRetry?: (error: unknown) => Promise<void>;
  /** Other errors worth another attempt (e.g. a migration that raced another process). */
  alsoRetry?: (error: unknown) => boolean;
  /** Stop retrying (e.g. the connection was closed on purpose). */
  stop?: () => boolean;
}

/** Before each new attempt: 20 ms doubling to 1 s, half of it random so racing processes part. */
const BUSY_BACKOFF: Backoff = { baseMs: 20, capMs: 1_000, jitter: 0.5 };

/**
 * Runs `task` until it succeeds, retrying busy/locked/closed errors with backoff. A busy connection may
 * hold a stale snapshot until it is dropped (libSQL keeps it after SQLITE_BUSY_SNAPSHOT), so callers
 * pass `onRetry` to reopen rather than retry on the same connection.
 */
export async function retryBusy<T>(task: () => Promise<T>, options: BusyRetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await task();
    } catch (error) {
      const retryable = isRetryableError(error) || options.alsoRetry?.(error) === true;
      if (!retryable || attempt >= options.attempts || options.stop?.() === true) throw error;
      await options.onRetry?.(error);
      await delay(backoffDelay(attempt, BUSY_BACKOFF));
    }
  }
}

/** True for errors worth a fresh connection and another attempt: busy/locked database or a closed client. */
export function isRetryableError(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth += 1) {
    if (typeof current !== "object") break;
    const record = current as { code?: unknown; message?: unknown; cause?: unknown };
    const code = typeof record.code === "string" ? record.code : "";
    const message = typeof record.message === "string" ? record.message : "";
    if (/SQLITE_BUSY|SQLITE_LOCKED|CLIENT_CLOSED/.test(code)) return true;
    if (/database is locked|SQLITE_BUSY|database table is locked/i.test(message)) return true;
    current = record.cause;
  }
  return false;
}
