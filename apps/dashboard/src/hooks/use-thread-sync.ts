import type { LongrunEvent, StoredMessage } from "@longrun/protocol";
import { useEffect, useRef, useState } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import { MIN_FLUSH_MS, nextFlushDelay } from "../lib/flush-pace.ts";
import { errorText } from "../lib/format.ts";
import type { AppAction } from "../state/app-reducer.ts";

const PAGE_LIMIT = 500;

/** After a team is spawned live, the snapshot is read again once the burst of events settles. */
const RESNAPSHOT_MS = 500;
/** Events read per REST page while filling in the history before the snapshot. */
const HISTORY_PAGE = 5000;
/**
 * What history is read for: runs (history, markers), compactions (notices), measurements (chart) and who
 * spawned whom. Messages come from the messages API; statuses, tools and approvals from the snapshot.
 */
const HISTORY_TYPES = "run.*,compaction.*,context.measured,breaker.*,agent.spawned";

export interface ThreadSyncError {
  code: string | null;
  text: string;
}

/**
 * Keeps the open thread in sync: reads a snapshot of it (statuses as of its head seq), subscribes to the
 * events after that head, and reads the history before it page by page in the background (for the
 * chart, notices and run history). Nothing from history overrides what the snapshot says now, so a
 * finished thread never looks running while its log is read. The SDK reconnects and resumes by itself;
 * the reducer ignores any seq it has already applied.
 */
export function useThreadSync(
  api: LongrunApi,
  threadId: string | null,
  dispatch: (action: AppAction) => void,
): ThreadSyncError | null {
  const [error, setError] = useState<ThreadSyncError | null>(null);
  useEffect(() => {
    setError(null);
    dispatch({ type: "thread.opened", threadId });
    if (!threadId) return;
    let closed = false;
    let buffer: LongrunEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    // Live events are applied in batches, paced by how well the page keeps up (lib/flush-pace.ts).
    let flushMs = MIN_FLUSH_MS;
    let flushDue = 0;
    let subscription: { close(): void } | null = null;
    let respawn: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      flushMs = nextFlushDelay(flushMs, performance.now() - flushDue);
      if (closed || buffer.length === 0) return;
      const events = buffer;
      buffer = [];
      dispatch({ type: "thread.events", threadId, events });
    };
    const fail = (caught: unknown) => {
      // A network failure shows in the banner and is retried on reconnect; anything else is shown here.
      if (closed || !isPermanent(caught)) return false;
      setError({ code: codeOf(caught), text: errorText(caught) });
      return true;
    };
    const readSnapshot = async () => {
      const snapshot = await api.threads.snapshot(threadId);
      if (!closed) dispatch({ type: "thread.snapshot", snapshot });
      return snapshot.headSeq;
    };
    const readHistory = async (untilSeq: number) => {
      let since = 0;
      while (!closed && since < untilSeq) {
        const page = await api.threads.eventsPage(threadId, {
          since,
          limit: HISTORY_PAGE,
          types: HISTORY_TYPES,
        });
        if (closed) return;
        const events = page.events.filter((event) => event.seq <= untilSeq);
        if (events.length > 0) dispatch({ type: "thread.events", threadId, events });
        if (page.nextSince === null || page.events.length === 0) break;
        since = page.nextSince;
      }
      if (!closed) dispatch({ type: "thread.history-loaded", threadId });
    };
    const start = async () => {
      let headSeq: number;
      try {
        headSeq = await readSnapshot();
      } catch (caught) {
        // No such thread (or no access): say so, and open no live subscription for it.
        if (fail(caught)) return;
        headSeq = 0;
      }
      if (closed) return;
      let previous: string | null = null;
      subscription = api.subscribe(
        { threadId, since: headSeq },
        {
          onEvent: (event) => {
            buffer.push(event);
            if (!timer) {
              flushDue = performance.now() + flushMs;
              timer = setTimeout(flush, flushMs);
            }
            // The snapshot after a burst of spawns also serves logs whose agent.spawned does not name its call.
            if (event.type === "agent.spawned" && event.seq > headSeq) {
              respawn ??= setTimeout(() => {
                respawn = null;
                void readSnapshot().catch(fail);
              }, RESNAPSHOT_MS);
            }
          },
          onStatus: (status) => {
            if (closed) return;
            dispatch({ type: "connection", status });
            if (status === "open" && previous === "reconnecting") void readSnapshot().catch(fail);
            previous = status;
          },
          onError: (caught) => {
            fail(caught);
          },
          onResync: () => {
            if (closed) return;
            dispatch({ type: "thread.resynced", threadId });
            void readSnapshot()
              .then((head) => readHistory(head))
              .catch(fail);
          },
        },
      );
      await readHistory(headSeq).catch(fail);
    };
    void start();
    return () => {
      closed = true;
      if (timer) clearTimeout(timer);
      if (respawn) clearTimeout(respawn);
      subscription?.close();
      dispatch({ type: "connection", status: "idle" });
      // A closed thread gets no more events; its list entry goes back to the polled status.
      dispatch({ type: "thread.opened", threadId: null });
    };
  }, [api, threadId, dispatch]);
  return error;
}

function codeOf(error: unknown): string | null {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : null;
}

function isPermanent(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "not_found" || code === "forbidden" || code === "unauthorized" || code === "bad_request";
}

/** Messages read first from the end of a long log, so the latest part of the transcript shows at once. */
const TAIL_MESSAGES = 400;
/** Older messages are merged into the state in batches of about this many. */
const MERGE_MESSAGES = 2500;

/**
 * Reads an agent's stored messages page by page; together with message.completed events this is the
 * transcript (the same message id from both sources is one entry). With a hint of where the log ends (the
 * agent's latest step, from the snapshot), the tail is read first and the older part after it.
 */
export function useAgentMessages(
  api: LongrunApi,
  threadId: string | null,
  agentId: string | null,
  dispatch: (action: AppAction) => void,
  reloadKey: number,
  endHint: number | null = null,
) {
  // Read when the effect starts, not a reason to start it again.
  const hint = useRef(endHint);
  hint.current = endHint;
  useEffect(() => {
    // reloadKey changes after a resync: read the facts again.
    void reloadKey;
    if (!threadId || !agentId) return;
    let cancelled = false;
    const readRange = async (from: number, until: number | null) => {
      let afterSeq = from;
      // Pages are merged into the state a few at a time: each merge rebuilds the transcript.
      let pending: StoredMessage[] = [];
      const merge = () => {
        if (pending.length > 0) dispatch({ type: "thread.messages", threadId, agentId, messages: pending });
        pending = [];
      };
      for (;;) {
        const page = await api.agents.messages(agentId, { limit: PAGE_LIMIT, afterSeq });
        if (cancelled) return;
        const messages =
          until === null ? page.messages : page.messages.filter((message) => message.seq <= until);
        pending = pending.concat(messages);
        if (pending.length >= MERGE_MESSAGES) merge();
        const last = page.messages[page.messages.length - 1];
        const done =
          page.nextAfterSeq === null ||
          page.messages.length === 0 ||
          (until !== null && last !== undefined && last.seq >= until);
        if (done) return merge();
        afterSeq = page.nextAfterSeq ?? afterSeq;
      }
    };
    const load = async () => {
      const tailStart = hint.current === null ? -1 : Math.max(-1, hint.current - TAIL_MESSAGES);
      await readRange(tailStart, null);
      if (tailStart > -1 && !cancelled) await readRange(-1, tailStart);
    };
    load().catch(() => {
      // Events still carry every completed message; the REST read only fills in what came before.
    });
    return () => {
      cancelled = true;
    };
  }, [api, threadId, agentId, dispatch, reloadKey]);
}
