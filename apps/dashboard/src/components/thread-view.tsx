import { useCallback, useMemo, useState } from "react";
import { useAgentMessages, useThreadSync } from "../hooks/use-thread-sync.ts";
import { buildAgentTree, rootAgentId } from "../state/agent-tree.ts";
import { asOfConnectionLoss, blockers, headStatus } from "../state/blockers.ts";
import { useStore } from "../state/store-context.tsx";
import { AgentActions } from "./agent-actions.tsx";
import { AgentTree } from "./agent-tree.tsx";
import { ApprovalPanel } from "./approval-panel.tsx";
import { BlockedOn } from "./blocked-on.tsx";
import { CompactionDiff } from "./compaction-diff.tsx";
import { Composer } from "./composer.tsx";
import { ContextGauge } from "./context-gauge.tsx";
import { ContextInspector } from "./context-inspector.tsx";
import { ForkOrigin } from "./fork-origin.tsx";
import { HistoryPanel, type HistoryRange } from "./history-panel.tsx";
import { LiveAnnouncer } from "./live-announcer.tsx";
import { RunBar } from "./run-bar.tsx";
import { RunHistory } from "./run-history.tsx";
import { ThreadCostPanel } from "./thread-cost.tsx";
import { Transcript } from "./transcript.tsx";

/** One thread: agent tree, the selected agent's transcript, context gauge and inspector, and actions. */
export function ThreadView({ threadId }: { threadId: string }) {
  const { api, state, dispatch } = useStore();
  const thread = state.thread?.threadId === threadId ? state.thread : null;
  // The transcript of some agent has had its first read: the history may be read now.
  const transcriptRead = thread !== null && Object.keys(thread.messagesReadFrom).length > 0;
  const loadError = useThreadSync(api, threadId, dispatch, transcriptRead);
  const [chosenAgentId, setChosenAgentId] = useState<string | null>(null);
  const [pickedStep, setPickedStep] = useState<{ step: number; at: number } | null>(null);
  const [history, setHistory] = useState<{ agentId: string; range: HistoryRange | null } | null>(null);
  const [diff, setDiff] = useState<{ agentId: string; compactionId: string } | null>(null);
  const tree = useMemo(() => (thread ? buildAgentTree(thread) : []), [thread]);
  const rootId = thread ? rootAgentId(thread) : null;
  const agentId = chosenAgentId && thread?.agents[chosenAgentId] ? chosenAgentId : rootId;
  const earlier = useAgentMessages(
    api,
    threadId,
    agentId,
    dispatch,
    state.resyncs,
    agentId ? (thread?.activity[agentId]?.step ?? null) : null,
  );
  // Stable, so the memoized notices of a long transcript do not re-render on every batch of events.
  const openHistory = useCallback(
    (range: HistoryRange | null) => {
      if (agentId) setHistory({ agentId, range });
    },
    [agentId],
  );
  const openDiff = useCallback(
    (compactionId: string) => {
      if (agentId) setDiff({ agentId, compactionId });
    },
    [agentId],
  );
  if (loadError) {
    return loadError.code === "not_found" ? (
      <div className="panel" data-testid="thread-not-found">
        <h1>No such thread</h1>
        <p>
          There is no thread <code>{threadId}</code> for your token: it never existed, or it belongs to
          another tenant.
        </p>
        <a href="#/">Back to the threads</a>
      </div>
    ) : (
      <p className="error" data-testid="thread-error">
        Cannot open this thread: {loadError.text}
      </p>
    );
  }
  if (!thread || thread.snapshotSeq === null) {
    return (
      <p className="muted" data-testid="thread-loading">
        Loading thread…
      </p>
    );
  }
  const summary = state.threads.find((candidate) => candidate.id === threadId);
  // The snapshot (or a live event after it) is the truth; the list, read after events, may be older.
  const status = thread.status ?? thread.restStatus ?? "idle";
  const agent = agentId ? thread.agents[agentId] : undefined;
  const stuck = Object.values(thread.runs).filter((run) => run.status === "stuck");
  const waits = blockers(thread);
  // While the live connection is down, statuses are the last ones known, and said so.
  const offline = state.connection === "reconnecting" || state.connection === "closed";
  const gateway = summary?.modelProfile.gateway;
  return (
    <div
      className="thread-view"
      data-testid="thread-view"
      data-thread-id={threadId}
      data-status={status}
      data-history-loaded={thread.historyLoaded ? "true" : "false"}
    >
      <header className="thread-head">
        <h1>{thread.title ?? summary?.title ?? threadId}</h1>
        <span
          className={`badge status-${waits.length > 0 ? "waiting" : status}`}
          data-testid="thread-status"
          data-offline={offline ? "true" : undefined}
        >
          {offline ? asOfConnectionLoss(headStatus(status, waits)) : headStatus(status, waits)}
        </span>
        {stuck.length > 0 && (
          <span className="badge status-stuck" data-testid="thread-stuck-badge">
            stuck
          </span>
        )}
        {gateway && (
          <span className="badge badge-gateway" title={`OpenAI-compatible gateway (${gateway.api})`}>
            gateway
          </span>
        )}
        {!thread.historyLoaded && (
          <span className="muted small" data-testid="history-syncing">
            reading history…
          </span>
        )}
        <RunBar thread={thread} waits={waits} offline={offline} />
      </header>
      <BlockedOn found={waits} />
      {stuck.map((run) => (
        <p key={run.id} className="banner banner-error" role="alert" data-testid="stuck-banner">
          A {run.kind ?? ""} run is stuck: nothing has moved it for longer than its lease.
          {run.error?.message ? ` Why: ${run.error.message}.` : ""} You can cancel it; it resumes by itself if
          a worker picks it up.
        </p>
      ))}
      <LiveAnnouncer thread={thread} />
      <div className="thread-grid">
        <aside className="col-left">
          <AgentTree
            thread={thread}
            tree={tree}
            selectedAgentId={agentId}
            onSelect={setChosenAgentId}
            offline={offline}
          />
          {agentId && (
            <ContextGauge
              thread={thread}
              agentId={agentId}
              onPickStep={(step) => setPickedStep({ step, at: Date.now() })}
            />
          )}
          {agentId && (
            <AgentActions
              key={agentId}
              thread={thread}
              agentId={agentId}
              agentName={agent?.name ?? agentId}
            />
          )}
          <RunHistory thread={thread} />
          <ThreadCostPanel thread={thread} />
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
          <ForkOrigin threadId={threadId} agentId={agentId} onSelectAgent={setChosenAgentId} />
          {agentId ? (
            <Transcript
              key={agentId}
              thread={thread}
              agentId={agentId}
              onOpenHistory={openHistory}
              onOpenDiff={openDiff}
              onSelectAgent={setChosenAgentId}
              earlier={earlier}
              pickedStep={pickedStep}
            />
          ) : (
            <p className="muted">Waiting for the thread's first agent…</p>
          )}
          <ApprovalPanel thread={thread} />
          <Composer threadId={threadId} agentId={agentId} agentName={agent?.name ?? null} />
        </section>
        <aside className="col-right">
          {agentId && <ContextInspector key={agentId} thread={thread} agentId={agentId} />}
        </aside>
      </div>
      {history && (
        <HistoryPanel agentId={history.agentId} range={history.range} onClose={() => setHistory(null)} />
      )}
      {diff && (
        <CompactionDiff
          thread={thread}
          agentId={diff.agentId}
          compactionId={diff.compactionId}
          onClose={() => setDiff(null)}
        />
      )}
    </div>
  );
}
