import type { LongrunEvent } from "@longrun/protocol";
import type { LiveEventSource } from "../client-turns/client-turn-options.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** How often the log is read when no live event wakes the waiter (live fan-out is best effort). */
const POLL_MS = 500;

/**
 * Waits for the first event of a thread after `afterSeq` that matches. The log is the authority
 * (events are persisted before they are published); live events only wake the reader early.
 */
export async function waitForEvent(
  deps: Pick<RuntimeDeps, "store">,
  live: LiveEventSource | undefined,
  input: {
    threadId: string;
    afterSeq: number;
    matches: (event: LongrunEvent) => boolean;
    timeoutMs: number;
    signal?: AbortSignal;
  },
): Promise<LongrunEvent | null> {
  let cursor = input.afterSeq;
  let wake: (() => void) | null = null;
  const unsubscribe = live?.subscribe((event) => {
    if ((event as { threadId?: unknown })?.threadId === input.threadId) wake?.();
  });
  const deadline = Date.now() + input.timeoutMs;
  try {
    for (;;) {
      for (;;) {
        const page = await deps.store.events.after(input.threadId, cursor, 500);
        for (const event of page) {
          cursor = event.seq;
          if (input.matches(event)) return event;
        }
        if (page.length < 500) break;
      }
      const left = deadline - Date.now();
      if (left <= 0 || input.signal?.aborted) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, Math.min(POLL_MS, left));
        function done() {
          clearTimeout(timer);
          wake = null;
          input.signal?.removeEventListener("abort", done);
          resolve();
        }
        wake = done;
        input.signal?.addEventListener("abort", done, { once: true });
      });
    }
  } finally {
    unsubscribe?.();
  }
}
