import type { LongrunEvent } from "@longrun/protocol";
import { useEffect, useState } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import { errorText } from "../lib/format.ts";
import type { AppAction } from "../state/app-reducer.ts";

const PAGE_LIMIT = 500;
/** Events are applied in batches: a replay of thousands of events is a handful of renders. */
const FLUSH_MS = 50;

/**
 * Keeps the open thread in sync: reads it over REST, then subscribes from the start of its log.
 * The SDK reconnects and resumes by itself; the reducer ignores any seq it has already applied.
 */
export function useThreadSync(
  api: LongrunApi,
  threadId: string | null,
  dispatch: (action: AppAction) => void,
): string | null {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setError(null);
    dispatch({ type: "thread.opened", threadId });
    if (!threadId) return;
    let closed = false;
    let buffer: LongrunEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      if (closed || buffer.length === 0) return;
      const events = buffer;
      buffer = [];
      dispatch({ type: "thread.events", threadId, events });
    };
    const reload = async () => {
      try {
        const detail = await api.threads.get(threadId);
        if (!closed) dispatch({ type: "thread.detail", detail });
      } catch (caught) {
        // A network failure shows in the banner and is retried on reconnect; anything else is shown here.
        if (!closed && isPermanent(caught)) setError(errorText(caught));
      }
    };
    void reload();
    let previous: string | null = null;
    const subscription = api.subscribe(
      { threadId, since: 0 },
      {
        onEvent: (event) => {
          buffer.push(event);
          timer ??= setTimeout(flush, FLUSH_MS);
        },
        onStatus: (status) => {
          if (closed) return;
          dispatch({ type: "connection", status });
          if (status === "open" && previous === "reconnecting") void reload();
          previous = status;
        },
        onError: (caught) => {
          if (!closed && isPermanent(caught)) setError(errorText(caught));
        },
        onResync: () => {
          if (closed) return;
          dispatch({ type: "thread.resynced", threadId });
          void reload();
        },
      },
    );
    return () => {
      closed = true;
      if (timer) clearTimeout(timer);
      subscription.close();
      dispatch({ type: "connection", status: "idle" });
      // A closed thread gets no more events; its list entry goes back to the polled status.
      dispatch({ type: "thread.opened", threadId: null });
    };
  }, [api, threadId, dispatch]);
  return error;
}

function isPermanent(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "not_found" || code === "forbidden" || code === "unauthorized" || code === "bad_request";
}

/**
 * Reads an agent's stored messages page by page; together with message.completed events this is the
 * transcript (the same message id from both sources is one entry).
 */
export function useAgentMessages(
  api: LongrunApi,
  threadId: string | null,
  agentId: string | null,
  dispatch: (action: AppAction) => void,
  reloadKey: number,
) {
  useEffect(() => {
    // reloadKey changes after a resync: read the facts again.
    void reloadKey;
    if (!threadId || !agentId) return;
    let cancelled = false;
    const load = async () => {
      let afterSeq: number | undefined;
      for (;;) {
        const page = await api.agents.messages(agentId, {
          limit: PAGE_LIMIT,
          ...(afterSeq === undefined ? {} : { afterSeq }),
        });
        if (cancelled) return;
        dispatch({ type: "thread.messages", threadId, agentId, messages: page.messages });
        if (page.nextAfterSeq === null || page.messages.length === 0) return;
        afterSeq = page.nextAfterSeq;
      }
    };
    load().catch(() => {
      // Events still carry every completed message; the REST read only fills in what came before.
    });
    return () => {
      cancelled = true;
    };
  }, [api, threadId, agentId, dispatch, reloadKey]);
}
