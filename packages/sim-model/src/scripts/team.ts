import { explorerTurn } from "./explorer.ts";
import type { PlannedTurn, ScriptContext } from "./planned-call.ts";

/** Team: step 1 spawns three sub-agents, then works like explorer. */
export function teamTurn(context: ScriptContext): PlannedTurn {
  if (context.step === 1 && context.tools.has("spawn_agents")) {
    const task = context.task.slice(0, 300) || "the workspace";
    const agents = [
      { name: "scout-sources", brief: `Survey the source files for: ${task}. Report the main modules.` },
      { name: "scout-tests", brief: `Find and read the tests related to: ${task}. Report what they cover.` },
      {
        name: "scout-docs",
        brief: `Read the docs and READMEs for: ${task}. Report open questions.`,
        inherit: true,
      },
    ];
    return {
      text: "Step 1: splitting the work across three sub-agents.",
      calls: [{ name: "spawn_agents", args: { agents } }],
    };
  }
  return explorerTurn({ ...context, step: Math.max(1, context.step - 1) });
}
