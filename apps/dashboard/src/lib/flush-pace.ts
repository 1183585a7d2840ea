/** The shortest wait before live events are applied: while the page keeps up, a batch every 50 ms. */
export const MIN_FLUSH_MS = 50;
/** The longest: even a page that cannot keep up shows what happened within a second. */
export const MAX_FLUSH_MS = 1000;

/**
 * How long to gather live events before the next batch is applied. A flush timer that fires late says
 * the main thread was busy (applying and drawing the last batch): then wait at least twice as long as it
 * was late, so a reader scrolling a long thread during a fast run keeps most of the main thread. While
 * timers fire on time, the wait shrinks back to the minimum.
 */
export function nextFlushDelay(currentMs: number, lateMs: number): number {
  if (lateMs > currentMs / 2) return Math.min(MAX_FLUSH_MS, Math.max(currentMs * 2, Math.round(lateMs * 2)));
  return Math.max(MIN_FLUSH_MS, Math.round(currentMs * 0.75));
}
