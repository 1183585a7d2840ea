import type { NewMessage } from "@longrun/protocol";

/** Which API the client spoke: OpenAI Chat Completions, OpenAI Responses or Anthropic Messages. */
export type ClientApi = "chat" | "responses" | "messages";

/** A function tool as the upstream Chat Completions API takes it. */
export interface UpstreamTool {
  type: "function";
  function: { name: string; description?: string; parameters?: unknown; strict?: boolean };
}

/**
 * How an upstream function call maps back onto the client's tool: a plain function, a function
 * inside a Responses `namespace` tool, or a freeform `custom` tool whose single string input travels
 * upstream as `{"input": "..."}`.
 */
export interface ToolRoute {
  kind: "function" | "custom";
  name: string;
  namespace?: string;
}

/**
 * One client request, whatever API it came through: the system text, the conversation as facts
 * (the client resends all of it every time), the client's tools in upstream form, and the options
 * that travel with the upstream request.
 */
export interface ClientTurn {
  api: ClientApi;
  model: string;
  /** Instructions plus the leading system/developer messages, joined. */
  system: string;
  /** Every conversation item after the system part, in order, as facts. */
  items: NewMessage[];
  tools: UpstreamTool[];
  /** Upstream tool name → the client's tool. */
  toolRoutes: Record<string, ToolRoute>;
  /** Client tools that cannot travel upstream (built-in Responses tools), by type. */
  droppedTools: string[];
  toolChoice?: unknown;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  /** temperature, top_p, stop, seed…: passed upstream as they are. */
  sampling: Record<string, unknown>;
  stream: boolean;
  /** Chat: stream_options.include_usage. Responses always report usage. */
  includeUsage: boolean;
  /** Responses `prompt_cache_key` (Codex sends its session id here; Claude Code's session id too). */
  promptCacheKey?: string;
  /**
   * Messages `thinking` as the client asked for it (Anthropic clients only): off, on with a budget, or
   * adaptive (the model decides how much). An Anthropic upstream takes it as it is.
   */
  thinking?: { type: "disabled" } | { type: "enabled"; budgetTokens: number } | { type: "adaptive" };
  /**
   * Messages `clear_thinking_20251015`: only the last this many assistant turns keep their reasoning
   * in the upstream request (undefined: all keep it).
   */
  keepReasoningTurns?: number;
  /**
   * The client asks for a compaction of this conversation in so many words: Codex's
   * `{"type": "compaction_trigger"}` input item, or its `POST /v1/responses/compact`.
   */
  compactionRequested?: boolean;
}
