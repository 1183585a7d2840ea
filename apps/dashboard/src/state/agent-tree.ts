import type { AgentNode, ThreadState } from "./thread-state.ts";

export interface AgentTreeNode {
  agent: AgentNode;
  depth: number;
  children: AgentTreeNode[];
}

/** Agents as a forest: roots first, each team under its parent, siblings by creation time. */
export function buildAgentTree(state: ThreadState): AgentTreeNode[] {
  const agents = Object.values(state.agents).sort(
    (left, right) => left.createdAt - right.createdAt || left.id.localeCompare(right.id),
  );
  const childrenOf = new Map<string | null, AgentNode[]>();
  for (const agent of agents) {
    // An agent whose parent is unknown (not loaded yet) is shown as a root rather than hidden.
    const parent = agent.parentAgentId && state.agents[agent.parentAgentId] ? agent.parentAgentId : null;
    childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), agent]);
  }
  const seen = new Set<string>();
  const build = (agent: AgentNode, depth: number): AgentTreeNode => {
    seen.add(agent.id);
    const children = (childrenOf.get(agent.id) ?? []).filter((child) => !seen.has(child.id));
    return { agent, depth, children: children.map((child) => build(child, depth + 1)) };
  };
  return (childrenOf.get(null) ?? []).map((agent) => build(agent, 0));
}

/** The thread's root agent: the oldest agent without a parent. */
export function rootAgentId(state: ThreadState): string | null {
  const roots = Object.values(state.agents)
    .filter((agent) => agent.parentAgentId === null)
    .sort((left, right) => left.createdAt - right.createdAt);
  return roots[0]?.id ?? null;
}

/** Flattens a tree in display order. */
export function flattenTree(nodes: readonly AgentTreeNode[]): AgentTreeNode[] {
  return nodes.flatMap((node) => [node, ...flattenTree(node.children)]);
}
