import {
  type Projection,
  type ProjectionInput,
  project,
  rebuildMemo,
  type Tokenizer,
} from "@longrun/compaction";
import type { ClientTurn } from "@longrun/openai-compat";
import type { ModelProfile } from "@longrun/protocol";
import type { AgentContext } from "../context/agent-context.ts";
import { restorationBudgetsFor, restoredFilesOf } from "../context/projection.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { countsOffThread } from "../tokens/message-counter.ts";

/**
 * The projection of a gateway conversation: the same pipeline as longrun's own agents, with the
 * system text and the tools of the client's current request (they count toward the window).
 * Cache-stable like an agent's: messages keep the form the conversation's earlier turns sent them
 * in (folded from the facts each turn), so the upstream request extends the previous one. A client
 * sends its system text and tools on every request and they can be as large as its body limit:
 * large ones are counted off the event loop first, so no request body holds the server.
 */
export async function projectTurn(
  deps: Pick<RuntimeDeps, "now" | "tokenizer" | "counter">,
  context: AgentContext,
  turn: Pick<ClientTurn, "system" | "tools">,
  profile: ModelProfile,
): Promise<Projection> {
  const systemPrompt = turn.system || context.systemPrompt;
  const texts = [systemPrompt ?? "", ...(turn.tools ?? []).map((tool) => JSON.stringify(tool.function))];
  const input: Omit<ProjectionInput, "memo"> = {
    systemPrompt,
    prefix: context.prefix,
    messages: context.facts,
    compaction: context.compaction,
    state: { plan: context.state.plan, todos: context.state.todos },
    restoredFiles: restoredFilesOf(context.compaction),
    profile,
    now: deps.now(),
    tokenizer: await precounted(deps, texts),
    tools: turn.tools,
    restorationBudgets: restorationBudgetsFor(profile),
  };
  return project({ ...input, memo: rebuildMemo(input) });
}

/** The tokenizer, answering for the large texts from counts made off-thread beforehand. */
async function precounted(
  deps: Pick<RuntimeDeps, "tokenizer" | "counter">,
  texts: string[],
): Promise<Tokenizer> {
  const { tokenizer, counter } = deps;
  const large = texts.filter(countsOffThread);
  if (!counter || large.length === 0) return tokenizer;
  const counts = new Map<string, number>();
  for (const text of large) counts.set(text, await counter.countText(text));
  return { family: tokenizer.family, count: (text) => counts.get(text) ?? tokenizer.count(text) };
}
