import { formatAgo, humanStatus } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

/** Threads, newest activity first, with status and last activity; the open thread shows its live status. */
export function ThreadList({
  selectedThreadId,
  onSelect,
}: {
  selectedThreadId: string | null;
  onSelect: (threadId: string) => void;
}) {
  const { state } = useStore();
  const open = state.thread;
  const threads = [...state.threads].sort((left, right) => right.updatedAt - left.updatedAt);
  return (
    <aside className="thread-list" data-testid="thread-list">
      <div className="thread-list-head">
        <h2>Threads</h2>
        <a className="button" href="#/" data-testid="new-thread-button">
          + New
        </a>
      </div>
      {!state.threadsLoaded && <p className="muted">Loading…</p>}
      {state.threadsLoaded && threads.length === 0 && (
        <p className="muted" data-testid="thread-list-empty">
          No threads yet.
        </p>
      )}
      <ul>
        {threads.map((thread) => {
          const live = open?.threadId === thread.id ? open : null;
          const status = live?.status ?? thread.status;
          const lastActivity = Math.max(thread.updatedAt, live?.lastActivityAt ?? 0);
          return (
            <li key={thread.id}>
              <button
                type="button"
                className={thread.id === selectedThreadId ? "thread-item selected" : "thread-item"}
                data-testid="thread-item"
                data-thread-id={thread.id}
                data-status={status}
                onClick={() => onSelect(thread.id)}
              >
                <span className="thread-title">{thread.title || thread.id}</span>
                <span className={`badge status-${status}`}>{humanStatus(status)}</span>
                <span className="muted small">
                  {thread.modelProfile.model}
                  {thread.modelProfile.maxInputTokens ? ` · ${thread.modelProfile.maxInputTokens} tok` : ""} ·{" "}
                  {formatAgo(lastActivity)}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
