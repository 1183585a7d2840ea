import { useEffect, useRef } from "react";
import type { LongrunApi } from "../api/api-types.ts";

export interface ReadOnEventsOptions {
  /** Events arriving within this long of the first are one read (a team asking at once, a busy run). */
  burstMs: number;
  /** Only while the socket is down, when no event can arrive: a slow read so the view is never frozen. */
  fallbackMs: number;
}

/**
 * Keeps a tenant-wide REST read current from events instead of a timer: a subscription to every thread
 * of the tenant ("*"), filtered to `types`, and `read` called again (once per burst) after them. The read
 * stays the source of truth; events only say when it is worth doing. On every (re)open it reads once,
 * since events of the time away may have been missed; while the socket is down it polls slowly.
 * `types` must be a stable array (a module constant).
 */
export function useReadOnEvents(
  api: LongrunApi,
  types: readonly string[],
  read: () => Promise<void>,
  options: ReadOnEventsOptions,
): void {
  // The latest read, called by a subscription that lives as long as the api.
  const latest = useRef(read);
  latest.current = read;
  const { burstMs, fallbackMs } = options;
  useEffect(() => {
    let closed = false;
    let burst: ReturnType<typeof setTimeout> | null = null;
    let fallback: ReturnType<typeof setInterval> | null = null;
    const readNow = () => {
      if (!closed) void latest.current();
    };
    const readSoon = () => {
      burst ??= setTimeout(() => {
        burst = null;
        readNow();
      }, burstMs);
    };
    const stopFallback = () => {
      if (fallback) clearInterval(fallback);
      fallback = null;
    };
    const subscription = api.subscribe(
      { threadId: "*", types: [...types] },
      {
        onEvent: readSoon,
        onStatus: (status) => {
          if (closed) return;
          if (status === "open") {
            stopFallback();
            readSoon();
          } else if (status !== "connecting" && !fallback) {
            readNow();
            fallback = setInterval(readNow, fallbackMs);
          }
        },
      },
    );
    readNow();
    return () => {
      closed = true;
      if (burst) clearTimeout(burst);
      stopFallback();
      subscription.close();
    };
  }, [api, types, burstMs, fallbackMs]);
}
