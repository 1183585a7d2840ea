import type { LongrunEvent, StoredMessage } from "@longrun/protocol";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
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
 * The history waits for the transcript's first read, so the entries a person opened the thread to see
 * are not queued behind thousands of measurements; past this, it is read anyway.
 */
const HISTORY_WAIT_MS = 1500;
/**
 * What history is read for: runs (history, markers), compactions (notices), measurements (chart) and who
 * spawned whom, decisions (a denied call shows as denied). Messages come from the messages API; statuses, tools and approvals from the snapshot.
 */
const HISTORY_TYPES = "run.*,compaction.*,context.measured,breaker.*,agent.spawned,approval.resolved";

export interface ThreadSyncError {
  code: string | null;
  text: string;
}

/**
 * Keeps the open thread in sync: reads a snapshot of it (statuses as of its head seq), subscribes to the
 * events after that head, and reads the history before it page by page in the background (for the
 * chart, notices and run history) once `transcriptRead` (the transcript's first read has ended). Nothing
 * from history overrides what the snapshot says now, so a finished thread never looks running while its
 * log is read. The SDK reconnects and resumes by itself; the reducer ignores any seq it has already
 * applied.
 */
export function useThreadSync(
  api: LongrunApi,
  threadId: string | null,
  dispatch: (action: AppAction) => void,
  transcriptRead = true,
): ThreadSyncError | null {
  const [error, setError] = useState<ThreadSyncError | null>(null);
  // Releases the history read of the thread open now; `read` says whether it may start at once.
  const gate = useRef<{ read: boolean; release: () => void }>({ read: transcriptRead, release: () => {} });
  gate.current.read = transcriptRead;
  useEffect(() => {
    if (transcriptRead) gate.current.release();
  }, [transcriptRead]);
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
    let waiting: ReturnType<typeof setTimeout> | undefined;
    const historyMayStart = new Promise<void>((resolve) => {
      gate.current.release = resolve;
      if (gate.current.read) resolve();
      else waiting = setTimeout(resolve, HISTORY_WAIT_MS);
    });
    const readHistory = async (untilSeq: number) => {
      await historyMayStart;
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
      clearTimeout(waiting);
      if (timer) clearTimeout(timer);
      if (respawn) clearTimeout(respawn);
      subscription?.close();
      dispatch({ type: "connection", status: "idle" });
      // A closed thread gets no more events here; its list entry shows the list's status again.
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

/** Messages (seqs) read from the end of a long log when it opens; older ones are read on demand. */
const TAIL_MESSAGES = 400;
/** Older messages are merged into the state in batches of about this many. */
const MERGE_MESSAGES = 2500;

/** Reading the older part of an agent's log (how far it has been read is `messagesReadFrom` in the state). */
export interface EarlierMessages {
  /** An older part is being read. */
  loading: boolean;
  /** Reads the log down to `toSeq` (null: to its start); reads run one after another. */
  load(toSeq: number | null): void;
}

interface ReadSession {
  cancelled: boolean;
  /** Every message above this seq has been read (MAX_SAFE_INTEGER: nothing known yet). */
  floor: number;
  queue: Promise<void>;
}

/**
 * Reads an agent's stored messages; together with message.completed events this is the transcript (the
 * same message id from both sources is one entry). With a hint of where the log ends (the agent's latest
 * step, from the snapshot), only the last TAIL_MESSAGES seqs are read when it opens: a thread of
 * thousands of steps opens as fast as a short one, and older parts are read when the reader asks for
 * them (showing earlier entries, searching, filtering, picking an old step on the chart).
 */
export function useAgentMessages(
  api: LongrunApi,
  threadId: string | null,
  agentId: string | null,
  dispatch: (action: AppAction) => void,
  reloadKey: number,
  endHint: number | null = null,
): EarlierMessages {
  // Read when the effect starts, not a reason to start it again.
  const hint = useRef(endHint);
  hint.current = endHint;
  const session = useRef<ReadSession | null>(null);
  const [loading, setLoading] = useState(false);
  /**
   * Reads messages with from < seq <= until (null: to the end), merging them a few pages at a time; the
   * last merge says how far back the log is now read.
   */
  const readRange = useCallback(
    async (current: ReadSession, from: number, until: number | null) => {
      if (!threadId || !agentId) return;
      let afterSeq = from;
      // Pages are merged into the state a few at a time: each merge rebuilds the transcript.
      let pending: StoredMessage[] = [];
      const merge = (readFrom?: number) => {
        if (pending.length > 0 || readFrom !== undefined)
          dispatch({ type: "thread.messages", threadId, agentId, messages: pending, readFrom });
        pending = [];
      };
      for (;;) {
        const page = await api.agents.messages(agentId, { limit: PAGE_LIMIT, afterSeq });
        if (current.cancelled) return;
        const messages =
          until === null ? page.messages : page.messages.filter((message) => message.seq <= until);
        pending = pending.concat(messages);
        const last = page.messages[page.messages.length - 1];
        const done =
          page.nextAfterSeq === null ||
          page.messages.length === 0 ||
          (until !== null && last !== undefined && last.seq >= until);
        if (done) {
          current.floor = Math.min(current.floor, from);
          return merge(from);
        }
        if (pending.length >= MERGE_MESSAGES) merge();
        afterSeq = page.nextAfterSeq ?? afterSeq;
      }
    },
    [api, threadId, agentId, dispatch],
  );
  useEffect(() => {
    // reloadKey changes after a resync: read the facts again.
    void reloadKey;
    setLoading(false);
    if (!threadId || !agentId) return;
    const tailStart = hint.current === null ? -1 : Math.max(-1, hint.current - TAIL_MESSAGES);
    const current: ReadSession = {
      cancelled: false,
      floor: Number.MAX_SAFE_INTEGER,
      queue: Promise.resolve(),
    };
    session.current = current;
    current.queue = readRange(current, tailStart, null).catch(() => {
      // Events still carry every completed message; reading earlier entries reads the rest again.
    });
    return () => {
      current.cancelled = true;
    };
  }, [threadId, agentId, reloadKey, readRange]);
  const load = useCallback(
    (toSeq: number | null) => {
      const current = session.current;
      if (!current) return;
      current.queue = current.queue.then(async () => {
        const from = toSeq === null ? -1 : Math.max(-1, toSeq);
        if (current.cancelled || from >= current.floor) return;
        setLoading(true);
        try {
          await readRange(current, from, current.floor === Number.MAX_SAFE_INTEGER ? null : current.floor);
        } catch {
          // A failed read leaves the log read as far as before: asking again reads it again.
        } finally {
          if (!current.cancelled) setLoading(false);
        }
      });
    },
    [readRange],
  );
  return useMemo(() => ({ loading, load }), [loading, load]);
}
