import { useNow } from "../hooks/use-now.ts";
import { formatDuration, formatTokens, humanStatus } from "../lib/format.ts";
import type { AgentTreeNode } from "../state/agent-tree.ts";
import { asOfConnectionLoss } from "../state/blockers.ts";
import { modelTurns, STEP_MEANING } from "../state/navigator.ts";
import type { AgentActivityView, ThreadState } from "../state/thread-state.ts";
import { type TokenFigure, tokenFigure } from "../state/token-figure.ts";

const AT_REST = new Set(["idle", "completed", "failed", "cancelled", "context_exhausted"]);

/**
 * The root agent and its sub-agent teams, each with what it is doing now: step, tool and how long it has
 * been running, tokens in the window and the time since its last event. Clicking one shows its transcript.
 */
export function AgentTree({
  thread,
  tree,
  selectedAgentId,
  onSelect,
  offline = false,
}: {
  thread: ThreadState;
  tree: readonly AgentTreeNode[];
  selectedAgentId: string | null;
  onSelect: (agentId: string) => void;
  /** The live connection is down: the agents' lines are as of when it went and stop counting. */
  offline?: boolean;
}) {
  const now = useNow();
  return (
    <nav className="panel agent-tree" data-testid="agent-tree" aria-labelledby="agents-title">
      <h2 id="agents-title">Agents</h2>
      {tree.length === 0 && <p className="muted">No agents yet.</p>}
      <ul className="tree">
        {tree.map((node) => (
          <AgentBranch
            key={node.agent.id}
            node={node}
            thread={thread}
            now={now}
            offline={offline}
            selectedAgentId={selectedAgentId}
            onSelect={onSelect}
          />
        ))}
      </ul>
    </nav>
  );
}

function AgentBranch({
  node,
  thread,
  now,
  offline,
  selectedAgentId,
  onSelect,
}: {
  node: AgentTreeNode;
  thread: ThreadState;
  now: number;
  offline: boolean;
  selectedAgentId: string | null;
  onSelect: (agentId: string) => void;
}) {
  const { agent } = node;
  const activity = thread.activity[agent.id];
  const selected = agent.id === selectedAgentId;
  return (
    <li>
      <button
        type="button"
        className={selected ? "agent-node selected" : "agent-node"}
        data-testid="agent-node"
        data-agent-id={agent.id}
        data-status={agent.status}
        aria-current={selected ? "true" : undefined}
        title={agent.brief ?? agent.statusReason ?? agent.id}
        onClick={() => onSelect(agent.id)}
      >
        <span className={`dot status-${agent.status}`} aria-hidden="true" />
        <span className="agent-name">{agent.name}</span>
        {agent.inherit === "fork" && <span className="muted small">fork</span>}
        <span className={`badge status-${agent.status}`}>{humanStatus(agent.status)}</span>
        {activity && (
          <ActivityLine
            activity={activity}
            figure={tokenFigure(thread, agent.id)}
            turns={thread.historyLoaded ? modelTurns(thread.measurements[agent.id] ?? []).length : null}
            status={agent.status}
            now={now}
            offline={offline}
          />
        )}
      </button>
      {node.children.length > 0 && (
        <ul className="tree">
          {node.children.map((child) => (
            <AgentBranch
              key={child.agent.id}
              node={child}
              thread={thread}
              now={now}
              offline={offline}
              selectedAgentId={selectedAgentId}
              onSelect={onSelect}
            />
          ))}
        </ul>
      )}
    </li>
  );
}

function ActivityLine({
  activity,
  figure,
  turns,
  status,
  now,
  offline,
}: {
  activity: AgentActivityView;
  figure: TokenFigure | null;
  /** Model turns taken (see modelTurns), once the history is read; null before. */
  turns: number | null;
  status: string;
  now: number;
  offline: boolean;
}) {
  const busy = !AT_REST.has(status);
  const parts: string[] = [];
  // A step is a position in the log, two or three per model turn: the turns beside it say why a
  // 40-turn task reads "step 87".
  if (activity.step !== null)
    parts.push(`step ${activity.step}${turns ? ` (${turns} model turn${turns === 1 ? "" : "s"})` : ""}`);
  const doing = busy ? (activity.tool?.name ?? humanStatus(status)) : null;
  const since = busy ? (activity.tool?.startedAt ?? activity.statusSince) : null;
  // Without the connection nothing says the agent is still at it: its last known state, not a count.
  if (doing && offline) parts.push(asOfConnectionLoss(doing));
  else if (doing && since) parts.push(`${doing} ${formatDuration(now - since)}`);
  if (figure) {
    parts.push(
      `${formatTokens(figure.tokens)}${figure.maxInputTokens ? `/${formatTokens(figure.maxInputTokens)}` : ""} tok${figure.source === "compacted" ? " after compaction" : ""}`,
    );
  }
  if (activity.lastEventAt) parts.push(`last event ${formatDuration(now - activity.lastEventAt)} ago`);
  return (
    <span
      className="agent-activity muted small"
      data-testid="agent-activity"
      title={STEP_MEANING}
      data-tool={busy ? (activity.tool?.name ?? "") : ""}
      data-offline={offline ? "true" : undefined}
      data-tokens={figure?.tokens ?? ""}
    >
      {parts.join(" · ")}
    </span>
  );
}
