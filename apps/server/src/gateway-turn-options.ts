import { type ClientTurnOptions, ConversationIndex, PromptCacheLedger } from "@longrun/runtime";
import type { ServerDeps } from "./server-deps.ts";
import { resolveWorkspace } from "./workspace.ts";

/** The options every gateway API (OpenAI Chat and Responses, Anthropic Messages) runs its client turns with. */
export function gatewayTurnOptions(deps: ServerDeps): ClientTurnOptions {
  return {
    // A gateway thread's workspace is always a new folder under the data dir (never a named one, so the
    // tenant checks of named workspaces do not apply): longrun runs none of the client's tools anyway.
    workspaceFor: async (threadId) =>
      (
        await resolveWorkspace(undefined, {
          dataDir: deps.dataDir,
          roots: deps.workspaceRoots,
          threadId,
          tenantId: "",
          store: deps.store,
        })
      ).dir,
    live: deps.live,
    ...(deps.defaults?.maxInputTokens ? { defaultMaxInputTokens: deps.defaults.maxInputTokens } : {}),
    // The upstream format is chosen as for longrun's own agents: by configuration.
    ...(deps.defaults?.upstreamApi ? { upstreamApi: deps.defaults.upstreamApi } : {}),
    ...(deps.defaults?.thinkingBudgetTokens
      ? { thinkingBudgetTokens: deps.defaults.thinkingBudgetTokens }
      : {}),
    promptCache: new PromptCacheLedger(),
    conversationIndex: new ConversationIndex(),
  };
}
