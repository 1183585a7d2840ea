import { type Projection, type ProjectionInput, project, rebuildMemo } from "@longrun/compaction";
import type { ClientTurn } from "@longrun/openai-compat";
import type { ModelProfile } from "@longrun/protocol";
import type { AgentContext } from "../engine/agent-context.ts";
import { restorationBudgetsFor, restoredFilesOf } from "../engine/projection.ts";
import type { RuntimeDeps } from "../engine/runtime-deps.ts";

/**
 * The projection of a gateway conversation: the same pipeline as longrun's own agents, with the
 * system text and the tools of the client's current request (they count toward the window).
 * Cache-stable like an agent's: messages keep the form the conversation's earlier turns sent them
 * in (folded from the facts each turn), so the upstream request extends the previous one.
 */
export function projectTurn(
  deps: Pick<RuntimeDeps, "now" | "tokenizer">,
  context: AgentContext,
  turn: Pick<ClientTurn, "system" | "tools">,
  profile: ModelProfile,
): Projection {
  const input: Omit<ProjectionInput, "memo"> = {
    systemPrompt: turn.system || context.systemPrompt,
    prefix: context.prefix,
    messages: context.facts,
    compaction: context.compaction,
    state: { plan: context.state.plan, todos: context.state.todos },
    restoredFiles: restoredFilesOf(context.compaction),
    profile,
    now: deps.now(),
    tokenizer: deps.tokenizer,
    tools: turn.tools,
    restorationBudgets: restorationBudgetsFor(profile),
  };
  return project({ ...input, memo: rebuildMemo(input) });
}
