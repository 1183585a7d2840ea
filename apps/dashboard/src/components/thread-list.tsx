import { useNow } from "../hooks/use-now.ts";
import { formatAgo, humanStatus } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import { useInbox } from "./approval-inbox.tsx";

/** Threads, newest activity first, with status and last activity; the open thread shows its live status. */
export function ThreadList({
  selectedThreadId,
  onSelect,
}: {
  selectedThreadId: string | null;
  onSelect: (threadId: string) => void;
}) {
  const { state } = useStore();
  // "51s ago" keeps moving while nothing else re-renders the list.
  const now = useNow();
  const open = state.thread;
  const inbox = useInbox();
  const waiting = new Map<string, number>();
  for (const item of inbox) waiting.set(item.threadId, (waiting.get(item.threadId) ?? 0) + 1);
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
          const status = live ? (live.status ?? live.restStatus ?? thread.status) : thread.status;
          const approvals = waiting.get(thread.id) ?? 0;
          const stuck = live
            ? Object.values(live.runs).some((run) => run.status === "stuck")
            : thread.stuckRuns > 0;
          const selected = thread.id === selectedThreadId;
          const lastActivity = Math.max(thread.updatedAt, live?.lastActivityAt ?? 0);
          return (
            <li key={thread.id}>
              <button
                type="button"
                className={selected ? "thread-item selected" : "thread-item"}
                data-testid="thread-item"
                data-thread-id={thread.id}
                data-status={status}
                data-approvals={approvals}
                data-stuck={stuck ? "true" : "false"}
                aria-current={selected ? "page" : undefined}
                onClick={() => onSelect(thread.id)}
              >
                <span className="thread-title">{thread.title || thread.id}</span>
                <span className="thread-badges">
                  <span className={`badge status-${status}`}>{humanStatus(status)}</span>
                  {approvals > 0 && (
                    <span className="badge status-waiting_approval" data-testid="thread-approval-badge">
                      {approvals} waiting for approval
                    </span>
                  )}
                  {stuck && (
                    <span className="badge status-stuck" data-testid="thread-stuck-badge">
                      stuck
                    </span>
                  )}
                  {thread.modelProfile.gateway && (
                    <span className="badge badge-gateway" data-testid="thread-gateway-badge">
                      gateway
                    </span>
                  )}
                </span>
                <span className="muted small">
                  {thread.modelProfile.model}
                  {thread.modelProfile.maxInputTokens ? ` · ${thread.modelProfile.maxInputTokens} tok` : ""} ·{" "}
                  <span data-testid="thread-ago">{formatAgo(lastActivity, now)}</span>
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </aside>
  );
}
