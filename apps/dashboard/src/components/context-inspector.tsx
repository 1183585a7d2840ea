import type { ChatMessage, ContextView } from "@longrun/protocol";
import { useCallback, useEffect, useRef, useState } from "react";
import { useActionError } from "../hooks/use-action-error.ts";
import { useNow } from "../hooks/use-now.ts";
import { clip, errorText, formatAgo, formatTokens, textOf } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import type { ThreadState } from "../state/thread-state.ts";
import { ContextMap } from "./context-map.tsx";

const REFRESH_MIN_MS = 1000;
const PREVIEW_CHARS = 600;

/** Exactly what the model receives next (GET /v1/agents/:id/context), each message marked by its origin. */
export function ContextInspector({ thread, agentId }: { thread: ThreadState; agentId: string }) {
  const { api } = useStore();
  const [view, setView] = useState<ContextView | null>(null);
  const [error, setError] = useActionError();
  const [loading, setLoading] = useState(false);
  const [asOf, setAsOf] = useState<{ step: number | null; at: number } | null>(null);
  const lastLoad = useRef(0);
  const latestStep = useRef<number | null>(null);
  const series = thread.measurements[agentId];
  latestStep.current = series?.[series.length - 1]?.step ?? thread.activity[agentId]?.step ?? null;
  const load = useCallback(async () => {
    setLoading(true);
    lastLoad.current = Date.now();
    // The step the agent was at when the read started: the projection is at least that new.
    const step = latestStep.current;
    try {
      setView(await api.agents.context(agentId));
      setAsOf({ step, at: Date.now() });
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setLoading(false);
    }
  }, [api, agentId, setError]);
  // Refresh when the agent's context changed: a new measurement or compaction, throttled.
  // The newest compaction event of this agent: `started` and then `completed` of one compaction share a key,
  // so counting keys would miss the completion (the inspector then showed the projection from before it).
  const lastCompactionSeq = Object.values(thread.compactions).reduce(
    (newest, notice) => (notice.agentId === agentId ? Math.max(newest, notice.eventSeq) : newest),
    -1,
  );
  const changeMark = `${series?.[series.length - 1]?.eventSeq ?? -1}:${lastCompactionSeq}`;
  useEffect(() => {
    void changeMark;
    const wait = Math.max(0, REFRESH_MIN_MS - (Date.now() - lastLoad.current));
    const timer = setTimeout(() => void load(), wait);
    return () => clearTimeout(timer);
  }, [load, changeMark]);
  return (
    <section className="panel context-inspector" data-testid="context-inspector" data-agent-id={agentId}>
      <div className="panel-head">
        <h2>Next request</h2>
        <button
          type="button"
          className="small"
          data-testid="context-refresh"
          onClick={() => void load()}
          disabled={loading}
        >
          {loading ? "…" : "Refresh"}
        </button>
      </div>
      {error && <p className="error small">{error}</p>}
      {view && asOf && <AsOf asOf={asOf} latestStep={latestStep.current} loading={loading} />}
      {view && <ContextSummary view={view} />}
      {view && <ContextMap view={view} />}
      {view && (
        <ol className="context-messages">
          {view.messages.map((message, index) => (
            <ContextMessage
              // The projection is rebuilt on every read; position is its identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: messages in a projection have no stable id
              key={index}
              message={message}
              mark={view.marks[index] ?? "raw"}
            />
          ))}
        </ol>
      )}
    </section>
  );
}

/** How old the shown projection is: its step, how long ago it was read, and whether the agent moved on. */
function AsOf({
  asOf,
  latestStep,
  loading,
}: {
  asOf: { step: number | null; at: number };
  latestStep: number | null;
  loading: boolean;
}) {
  const now = useNow();
  const behind = asOf.step !== null && latestStep !== null ? latestStep - asOf.step : 0;
  return (
    <p className="muted small" data-testid="context-as-of" data-step={asOf.step ?? ""} data-behind={behind}>
      As of {asOf.step === null ? "before the first step" : `step ${asOf.step}`}, read{" "}
      {formatAgo(asOf.at, now)}
      {behind > 0
        ? ` · the agent is ${behind} step${behind === 1 ? "" : "s"} further${loading ? ", refreshing…" : ""}`
        : ""}
    </p>
  );
}

function ContextSummary({ view }: { view: ContextView }) {
  const saved = view.saved.collapse + view.saved.truncate + view.saved.microcompact;
  const counts = new Map<string, number>();
  for (const mark of view.marks) counts.set(mark, (counts.get(mark) ?? 0) + 1);
  return (
    <div className="context-summary" data-testid="context-summary" data-tokens={view.tokens}>
      <p>
        <strong>{formatTokens(view.tokens)}</strong> tokens in {view.messages.length} messages
        {view.maxInputTokens ? ` of a ${formatTokens(view.maxInputTokens)} window` : ""}; trigger{" "}
        {formatTokens(view.triggerTokens)}; raw history {formatTokens(view.rawTokens)}
        {saved > 0 ? `; stages saved ${formatTokens(saved)}` : ""}.
        {view.needsCompaction && <span className="badge status-compacting"> needs compaction</span>}
      </p>
      <p className="mark-counts">
        {[...counts.entries()].map(([mark, count]) => (
          <span key={mark} className={`mark mark-${mark}`}>
            {mark} × {count}
          </span>
        ))}
      </p>
      {counts.has("repaired") && (
        <p className="muted small" data-testid="context-repaired-note">
          <span className="mark mark-repaired">repaired</span> a call with no result yet (running, waiting for
          approval, or interrupted) gets a placeholder result so the request is valid; the real result
          replaces it once it exists.
        </p>
      )}
      {view.compaction && (
        <p className="muted small">
          Compaction in force: {view.compaction.strategy} ({view.compaction.trigger}),{" "}
          {formatTokens(view.compaction.tokensBefore)} → {formatTokens(view.compaction.tokensAfter)}
        </p>
      )}
      {view.state && (view.state.plan || view.state.todos.length > 0) && (
        <details className="agent-state">
          <summary>Plan and TODOs</summary>
          {view.state.plan && <pre className="code">{view.state.plan}</pre>}
          <ul>
            {view.state.todos.map((todo) => (
              <li key={todo.content}>
                [{todo.status}] {todo.content}
              </li>
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function ContextMessage({ message, mark }: { message: ChatMessage; mark: string }) {
  const [expanded, setExpanded] = useState(false);
  const text = textOf(message.content);
  const shown = expanded ? { text, clipped: false } : clip(text, PREVIEW_CHARS);
  const calls = message.tool_calls ?? [];
  return (
    <li
      className={`context-message mark-${mark}`}
      data-testid="context-message"
      data-mark={mark}
      data-role={message.role}
    >
      <div className="context-message-head">
        <span className={`mark mark-${mark}`}>{mark}</span>
        <span className="role">{message.role}</span>
        {message.tool_call_id && <span className="muted small">result of {message.tool_call_id}</span>}
      </div>
      {text && <pre className="message-text">{shown.text}</pre>}
      {shown.clipped && (
        <button type="button" className="link small" onClick={() => setExpanded(true)}>
          Show all ({text.length} chars)
        </button>
      )}
      {calls.map((call) => (
        <div key={call.id} className="muted small">
          → {call.function.name}({clip(call.function.arguments, 160).text})
        </div>
      ))}
    </li>
  );
}
