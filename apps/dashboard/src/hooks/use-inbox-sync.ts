import { useEffect } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import type { AppAction } from "../state/app-reducer.ts";

/** The tenant-wide signal: any thread's approval asked for or decided. */
const INBOX_EVENTS = ["approval.requested", "approval.resolved"];
/** Approvals arriving together (a team asking at once) are one read. */
const READ_AFTER_MS = 100;
/** Only while the socket is down, when no event can arrive: a slow read so the inbox is never frozen. */
export const INBOX_FALLBACK_POLL_MS = 30_000;

/**
 * Keeps the approvals inbox current from events instead of a timer: a subscription to every thread of
 * the tenant ("*"), filtered to approval events, and the inbox read again (one REST call, the source of
 * truth for titles and arguments) after each. On every (re)open it reads once, since events of the time
 * away may have been missed; while the socket is down it falls back to a slow poll.
 */
export function useInboxSync(api: LongrunApi, dispatch: (action: AppAction) => void): void {
  useEffect(() => {
    let closed = false;
    let readTimer: ReturnType<typeof setTimeout> | null = null;
    let fallback: ReturnType<typeof setInterval> | null = null;
    const read = async () => {
      try {
        const approvals = await api.approvals.pending();
        if (!closed) dispatch({ type: "inbox.loaded", approvals });
      } catch {
        // The next event, reopen or fallback read tries again; the inbox keeps its last good value.
      }
    };
    const readSoon = () => {
      readTimer ??= setTimeout(() => {
        readTimer = null;
        void read();
      }, READ_AFTER_MS);
    };
    const stopFallback = () => {
      if (fallback) clearInterval(fallback);
      fallback = null;
    };
    const subscription = api.subscribe(
      { threadId: "*", types: INBOX_EVENTS },
      {
        onEvent: readSoon,
        onStatus: (status) => {
          if (closed) return;
          if (status === "open") {
            stopFallback();
            readSoon();
          } else if (status !== "connecting" && !fallback) {
            void read();
            fallback = setInterval(() => void read(), INBOX_FALLBACK_POLL_MS);
          }
        },
      },
    );
    readSoon();
    return () => {
      closed = true;
      if (readTimer) clearTimeout(readTimer);
      stopFallback();
      subscription.close();
    };
  }, [api, dispatch]);
}
