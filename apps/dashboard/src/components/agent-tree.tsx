import { humanStatus } from "../lib/format.ts";
import type { AgentTreeNode } from "../state/agent-tree.ts";

/** The root agent and its sub-agent teams, with live status; clicking one shows its transcript. */
export function AgentTree({
  tree,
  selectedAgentId,
  onSelect,
}: {
  tree: readonly AgentTreeNode[];
  selectedAgentId: string | null;
  onSelect: (agentId: string) => void;
}) {
  return (
    <section className="panel agent-tree" data-testid="agent-tree">
      <h2>Agents</h2>
      {tree.length === 0 && <p className="muted">No agents yet.</p>}
      <ul className="tree">
        {tree.map((node) => (
          <AgentBranch
            key={node.agent.id}
            node={node}
            selectedAgentId={selectedAgentId}
            onSelect={onSelect}
          />
        ))}
      </ul>
    </section>
  );
}

function AgentBranch({
  node,
  selectedAgentId,
  onSelect,
}: {
  node: AgentTreeNode;
  selectedAgentId: string | null;
  onSelect: (agentId: string) => void;
}) {
  const { agent } = node;
  return (
    <li>
      <button
        type="button"
        className={agent.id === selectedAgentId ? "agent-node selected" : "agent-node"}
        data-testid="agent-node"
        data-agent-id={agent.id}
        data-status={agent.status}
        title={agent.brief ?? agent.statusReason ?? agent.id}
        onClick={() => onSelect(agent.id)}
      >
        <span className={`dot status-${agent.status}`} aria-hidden="true" />
        <span className="agent-name">{agent.name}</span>
        {agent.inherit === "fork" && <span className="muted small">fork</span>}
        <span className={`badge status-${agent.status}`}>{humanStatus(agent.status)}</span>
      </button>
      {node.children.length > 0 && (
        <ul className="tree">
          {node.children.map((child) => (
            <AgentBranch
              key={child.agent.id}
              node={child}
              selectedAgentId={selectedAgentId}
              onSelect={onSelect}
            />
          ))}
        </ul>
      )}
    </li>
  );
}
