import { useCallback, useEffect } from "react";
import { isUnauthorized } from "../api/create-api.ts";
import { useHashRoute } from "../hooks/use-hash-route.ts";
import { useInboxSync } from "../hooks/use-inbox-sync.ts";
import { usePoll } from "../hooks/use-poll.ts";
import { useStore } from "../state/store-context.tsx";
import { ApprovalInbox, useInbox } from "./approval-inbox.tsx";
import { ConnectionBanner } from "./connection-banner.tsx";
import { CreateThreadForm } from "./create-thread-form.tsx";
import { OpsView } from "./ops-view.tsx";
import { ThreadList } from "./thread-list.tsx";
import { ThreadView } from "./thread-view.tsx";

const THREADS_POLL_MS = 5000;

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
  const poll = usePoll(loadThreads, THREADS_POLL_MS);
  useEffect(() => {
    if (poll.error) dispatch({ type: "threads.failed", error: poll.error });
  }, [poll.error, dispatch]);
  useInboxSync(api, dispatch);
  const inbox = useInbox();
  // The tab says how many calls wait for a person, so a background tab still asks for attention.
  useEffect(() => {
    document.title = inbox.length > 0 ? `(${inbox.length}) longrun` : "longrun";
  }, [inbox.length]);
  const threadId = route.view === "threads" ? route.threadId : null;
  // The thread just left stops getting live events and falls back to its polled status: read the list now
  // instead of showing a status up to one poll old.
  useEffect(() => {
    void threadId;
    loadThreads().catch(() => {
      // The poll reports errors; this read is only a faster refresh.
    });
  }, [threadId, loadThreads]);
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
