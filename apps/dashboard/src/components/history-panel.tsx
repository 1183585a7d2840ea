import type { HistoryView } from "@longrun/protocol";
import { useEffect, useState } from "react";
import { clip, errorText } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

const PREVIEW_CHARS = 800;

/** The messages compaction moved out of the context into the agent's history file (GET /v1/agents/:id/history). */
export function HistoryPanel({ agentId, onClose }: { agentId: string; onClose: () => void }) {
  const { api } = useStore();
  const [view, setView] = useState<HistoryView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    api.agents
      .history(agentId)
      .then((history) => {
        if (!cancelled) setView(history);
      })
      .catch((caught: unknown) => {
        if (!cancelled) setError(errorText(caught));
      });
    return () => {
      cancelled = true;
    };
  }, [api, agentId]);
  return (
    <div className="overlay">
      <section className="panel history-panel" data-testid="history-panel" aria-label="Compacted history">
        <div className="panel-head">
          <h2>Compacted history</h2>
          <button type="button" className="small" data-testid="history-close" onClick={onClose}>
            Close
          </button>
        </div>
        {error && <p className="error">{error}</p>}
        {!view && !error && <p className="muted">Loading…</p>}
        {view && (
          <>
            <p className="muted small">
              {view.messages.length} messages{view.file ? ` in ${view.file}` : ""}. They are out of the
              model's context but never deleted.
            </p>
            <ol className="history-messages">
              {view.messages.map((message, index) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: history lines are append-only; the index is stable
                <li key={index} data-testid="history-message">
                  <pre className="message-text">{describe(message)}</pre>
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
    </div>
  );
}

function describe(message: unknown): string {
  if (typeof message !== "object" || message === null) return String(message);
  const fields = message as { role?: unknown; content?: unknown };
  const content =
    typeof fields.content === "string" ? fields.content : JSON.stringify(fields.content ?? message);
  return `${typeof fields.role === "string" ? `${fields.role}: ` : ""}${clip(content ?? "", PREVIEW_CHARS).text}`;
}
