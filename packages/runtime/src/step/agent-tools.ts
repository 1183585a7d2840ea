import type { Agent } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import type { ToolDefinition } from "../tools/index.ts";

/** The tool only a root agent is offered: a team is one level deep, or a scripted team spawns forever. */
export const SPAWN_TOOL = "spawn_agents";

/** The tools offered to an agent: everything for a root agent, all but `spawn_agents` for a sub-agent. */
export function toolsFor(
  deps: Pick<RuntimeDeps, "tools">,
  agent: Pick<Agent, "parentAgentId">,
): ToolDefinition[] {
  const all = deps.tools.definitions();
  return agent.parentAgentId ? all.filter((tool) => tool.function.name !== SPAWN_TOOL) : all;
}
