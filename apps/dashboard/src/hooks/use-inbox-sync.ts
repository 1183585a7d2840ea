import { useCallback } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import type { AppAction } from "../state/app-reducer.ts";
import { useReadOnEvents } from "./use-read-on-events.ts";

/** The tenant-wide signal: any thread's approval asked for or decided. */
const INBOX_EVENTS = ["approval.requested", "approval.resolved"];
/** Approvals arriving together (a team asking at once) are one read. */
const READ_AFTER_MS = 100;
/** Only while the socket is down, when no event can arrive: a slow read so the inbox is never frozen. */
export const INBOX_FALLBACK_POLL_MS = 30_000;

/**
 * Keeps the approvals inbox current from events instead of a timer: the inbox is read again (one REST
 * call, the source of truth for titles and arguments) after any approval event of the tenant.
 */
export function useInboxSync(api: LongrunApi, dispatch: (action: AppAction) => void): void {
  const read = useCallback(async () => {
    try {
      dispatch({ type: "inbox.loaded", approvals: await api.approvals.pending() });
    } catch {
      // The next event, reopen or fallback read tries again; the inbox keeps its last good value.
    }
  }, [api, dispatch]);
  useReadOnEvents(api, INBOX_EVENTS, read, { burstMs: READ_AFTER_MS, fallbackMs: INBOX_FALLBACK_POLL_MS });
}
