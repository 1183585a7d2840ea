import { useCallback, useEffect } from "react";
import { isUnauthorized } from "../api/create-api.ts";
import { useHashRoute } from "../hooks/use-hash-route.ts";
import { useInboxSync } from "../hooks/use-inbox-sync.ts";
import { useReadOnEvents } from "../hooks/use-read-on-events.ts";
import { errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import { ApprovalInbox, useInbox } from "./approval-inbox.tsx";
import { ConnectionBanner } from "./connection-banner.tsx";
import { CreateThreadForm } from "./create-thread-form.tsx";
import { OpsView } from "./ops-view.tsx";
import { ThreadList } from "./thread-list.tsx";
import { ThreadView } from "./thread-view.tsx";

/**
 * What changes a thread's line in the list: its status, runs (stuck, resumed), approvals waiting, a
 * new thread, and each step (its last activity).
 */
const THREAD_LIST_EVENTS = ["thread.*", "run.*", "approval.*", "context.measured"];
/** Busy threads step many times a second: their list line is read again at most this often. */
const THREAD_LIST_BURST_MS = 1000;
/** Only while the socket is down. */
const THREAD_LIST_FALLBACK_MS = 5000;

/** The shell: top bar, connection banner, and either the threads workspace or the operations view. */
export function App({ onUnauthorized }: { onUnauthorized: () => void }) {
  const { api, state, dispatch } = useStore();
  const [route, navigate] = useHashRoute();
  const loadThreads = useCallback(async () => {
    try {
      const threads = await api.threads.list();
      dispatch({ type: "threads.loaded", threads });
      return threads;
    } catch (error) {
      if (isUnauthorized(error)) onUnauthorized();
      throw error;
    }
  }, [api, dispatch, onUnauthorized]);
  const readThreads = useCallback(async () => {
    try {
      await loadThreads();
    } catch (error) {
      dispatch({ type: "threads.failed", error: errorText(error) });
    }
  }, [loadThreads, dispatch]);
  // The list follows the tenant's events; it is read again after them, not on a timer.
  useReadOnEvents(api, THREAD_LIST_EVENTS, readThreads, {
    burstMs: THREAD_LIST_BURST_MS,
    fallbackMs: THREAD_LIST_FALLBACK_MS,
  });
  useInboxSync(api, dispatch);
  const inbox = useInbox();
  // The tab says how many calls wait for a person, so a background tab still asks for attention.
  useEffect(() => {
    document.title = inbox.length > 0 ? `(${inbox.length}) longrun` : "longrun";
  }, [inbox.length]);
  const threadId = route.view === "threads" ? route.threadId : null;
  // The thread just left stops getting live events and falls back to the list's status: read the list now.
  useEffect(() => {
    void threadId;
    void readThreads();
  }, [threadId, readThreads]);
  return (
    <div className="app">
      {/* Routes live in the hash, so the skip link is a button that moves focus without changing it. */}
      <button
        type="button"
        className="skip-link"
        data-testid="skip-to-composer"
        onClick={() => document.getElementById("composer-input")?.focus()}
      >
        Skip to the message box
      </button>
      <header className="topbar">
        <a className="brand" href="#/">
          longrun
        </a>
        <nav>
          <a href="#/" className={route.view === "threads" ? "active" : ""} data-testid="nav-threads">
            Threads
          </a>
          <a href="#/ops" className={route.view === "ops" ? "active" : ""} data-testid="nav-ops">
            Operations
          </a>
        </nav>
        <ApprovalInbox onOpenThread={(id) => navigate({ view: "threads", threadId: id })} />
        <span className={`connection-pill status-${state.connection}`} data-testid="connection-status">
          {state.connection === "idle" ? "" : state.connection}
        </span>
      </header>
      <ConnectionBanner connection={state.connection} threadsError={state.threadsError} />
      {route.view === "ops" ? (
        <OpsView />
      ) : (
        <div className="threads-layout">
          <ThreadList
            selectedThreadId={threadId}
            onSelect={(id) => navigate({ view: "threads", threadId: id })}
          />
          <main className="thread-main">
            {threadId ? (
              <ThreadView key={threadId} threadId={threadId} />
            ) : (
              <CreateThreadForm onCreated={(id) => navigate({ view: "threads", threadId: id })} />
            )}
          </main>
        </div>
      )}
    </div>
  );
}
