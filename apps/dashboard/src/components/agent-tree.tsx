import { useNow } from "../hooks/use-now.ts";
import { formatDuration, formatTokens, humanStatus } from "../lib/format.ts";
import type { AgentTreeNode } from "../state/agent-tree.ts";
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
}: {
  thread: ThreadState;
  tree: readonly AgentTreeNode[];
  selectedAgentId: string | null;
  onSelect: (agentId: string) => void;
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
  selectedAgentId,
  onSelect,
}: {
  node: AgentTreeNode;
  thread: ThreadState;
  now: number;
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
            status={agent.status}
            now={now}
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
  status,
  now,
}: {
  activity: AgentActivityView;
  figure: TokenFigure | null;
  status: string;
  now: number;
}) {
  const busy = !AT_REST.has(status);
  const parts: string[] = [];
  if (activity.step !== null) parts.push(`step ${activity.step}`);
  if (busy && activity.tool)
    parts.push(`${activity.tool.name} ${formatDuration(now - activity.tool.startedAt)}`);
  else if (busy && activity.statusSince)
    parts.push(`${humanStatus(status)} ${formatDuration(now - activity.statusSince)}`);
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
      data-tool={busy ? (activity.tool?.name ?? "") : ""}
      data-tokens={figure?.tokens ?? ""}
    >
      {parts.join(" · ")}
    </span>
  );
}
