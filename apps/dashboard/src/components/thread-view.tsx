import { useMemo, useState } from "react";
import { useAgentMessages, useThreadSync } from "../hooks/use-thread-sync.ts";
import { humanStatus } from "../lib/format.ts";
import { buildAgentTree, rootAgentId } from "../state/agent-tree.ts";
import { useStore } from "../state/store-context.tsx";
import { AgentActions } from "./agent-actions.tsx";
import { AgentTree } from "./agent-tree.tsx";
import { ApprovalPanel } from "./approval-panel.tsx";
import { Composer } from "./composer.tsx";
import { ContextGauge } from "./context-gauge.tsx";
import { ContextInspector } from "./context-inspector.tsx";
import { HistoryPanel } from "./history-panel.tsx";
import { RunBar } from "./run-bar.tsx";
import { Transcript } from "./transcript.tsx";

/** One thread: agent tree, the selected agent's transcript, context gauge and inspector, and actions. */
export function ThreadView({ threadId }: { threadId: string }) {
  const { api, state, dispatch } = useStore();
  const loadError = useThreadSync(api, threadId, dispatch);
  const thread = state.thread?.threadId === threadId ? state.thread : null;
  const [chosenAgentId, setChosenAgentId] = useState<string | null>(null);
  const [historyAgentId, setHistoryAgentId] = useState<string | null>(null);
  const tree = useMemo(() => (thread ? buildAgentTree(thread) : []), [thread]);
  const rootId = thread ? rootAgentId(thread) : null;
  const agentId = chosenAgentId && thread?.agents[chosenAgentId] ? chosenAgentId : rootId;
  useAgentMessages(api, threadId, agentId, dispatch, state.resyncs);
  if (loadError) {
    return (
      <p className="error" data-testid="thread-error">
        Cannot open this thread: {loadError}
      </p>
    );
  }
  if (!thread) return <p className="muted">Loading thread…</p>;
  const summary = state.threads.find((candidate) => candidate.id === threadId);
  // Live events first, then the polled list (fresher than the one REST read at open).
  const status = thread.status ?? summary?.status ?? thread.restStatus ?? "idle";
  const agent = agentId ? thread.agents[agentId] : undefined;
  return (
    <div className="thread-view" data-testid="thread-view" data-thread-id={threadId} data-status={status}>
      <header className="thread-head">
        <h1>{thread.title ?? summary?.title ?? threadId}</h1>
        <span className={`badge status-${status}`} data-testid="thread-status">
          {humanStatus(status)}
        </span>
        <RunBar thread={thread} />
      </header>
      <ApprovalPanel thread={thread} />
      <div className="thread-grid">
        <aside className="col-left">
          <AgentTree tree={tree} selectedAgentId={agentId} onSelect={setChosenAgentId} />
          {agentId && <ContextGauge thread={thread} agentId={agentId} />}
          {agentId && <AgentActions key={agentId} agentId={agentId} agentName={agent?.name ?? agentId} />}
        </aside>
        <section className="col-center">
          {agent?.status === "context_exhausted" && (
            <p className="banner banner-error" data-testid="context-exhausted">
              {agent.name}'s context is exhausted: even after compaction the next request would not fit the
              window, so it was not sent. {agent.statusReason ?? ""} Start a new thread to continue.
            </p>
          )}
          {agent?.status === "failed" && agent.statusReason && (
            <p className="banner banner-error" data-testid="agent-failed">
              {agent.name} failed: {agent.statusReason}
            </p>
          )}
          {agentId ? (
            <Transcript key={agentId} thread={thread} agentId={agentId} onOpenHistory={setHistoryAgentId} />
          ) : (
            <p className="muted">Waiting for the thread's first agent…</p>
          )}
          <Composer threadId={threadId} agentId={agentId} agentName={agent?.name ?? null} />
        </section>
        <aside className="col-right">
          {agentId && <ContextInspector key={agentId} thread={thread} agentId={agentId} />}
        </aside>
      </div>
      {historyAgentId && <HistoryPanel agentId={historyAgentId} onClose={() => setHistoryAgentId(null)} />}
    </div>
  );
}
