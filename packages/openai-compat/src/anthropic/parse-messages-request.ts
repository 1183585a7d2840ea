import type { ClientTurn, ToolRoute, UpstreamTool } from "../client-turn.ts";
import { blocksText, messagesToFacts } from "./messages-facts.ts";
import type { CountTokensRequestBody, MessagesRequestBody, WireBlock } from "./messages-request.ts";

/** What a Messages request asks for beyond the common client turn. */
export interface MessagesOptions {
  /** `thinking` enabled or adaptive: the answer's reasoning is told as thinking blocks. */
  thinking: boolean;
  /** The client marked cache breakpoints (`cache_control`): cache reads and writes are reported. */
  cacheControl: boolean;
  /** The context_management edits asked for, by type, in order. */
  contextEdits: string[];
}

function hasCacheControl(values: ReadonlyArray<unknown>): boolean {
  return values.some((value) => {
    if (Array.isArray(value)) return hasCacheControl(value);
    return typeof value === "object" && value !== null && "cache_control" in value;
  });
}

/** The session id Claude Code puts in `metadata.user_id` (a JSON string), if any. */
function sessionOf(metadata: CountTokensRequestBody["metadata"]): string | undefined {
  const userId = metadata?.user_id;
  if (!userId) return undefined;
  try {
    const parsed = JSON.parse(userId) as { session_id?: unknown };
    return typeof parsed.session_id === "string" && parsed.session_id ? parsed.session_id : undefined;
  } catch {
    // A user_id that is not JSON carries no session id.
    return undefined;
  }
}

function keepThinkingOf(edit: Record<string, unknown> | undefined): number | undefined {
  const keep = edit?.keep as { type?: unknown; value?: unknown } | "all" | undefined;
  if (!edit || keep === "all") return undefined;
  if (keep && keep.type === "thinking_turns" && typeof keep.value === "number") return keep.value;
  // The API's default keeps the last assistant turn's thinking.
  return 1;
}

function toolChoiceOf(choice: MessagesRequestBody["tool_choice"]): unknown {
  switch (choice?.type) {
    case undefined:
      return undefined;
    case "any":
      return "required";
    case "none":
      return "none";
    case "tool":
      return choice.name ? { type: "function", function: { name: choice.name } } : "required";
    default:
      return "auto";
  }
}

/** The request's `thinking` in the client turn's terms (a type this code does not know: none). */
function thinkingOf(thinking: MessagesRequestBody["thinking"]): ClientTurn["thinking"] {
  if (thinking?.type === "disabled" || thinking?.type === "adaptive") return { type: thinking.type };
  const budget = (thinking as { budget_tokens?: unknown } | undefined)?.budget_tokens;
  if (thinking?.type === "enabled" && typeof budget === "number" && Number.isInteger(budget))
    return { type: "enabled", budgetTokens: budget };
  return undefined;
}

/**
 * An Anthropic Messages request as a client turn: `system` blocks become the system text, messages the
 * facts (tool_result blocks become tool facts next to their call), tools keep their JSON schema.
 * Server tools (web search, code execution…) have no upstream form and are dropped.
 */
export function parseMessagesRequest(body: MessagesRequestBody | CountTokensRequestBody): {
  turn: ClientTurn;
  options: MessagesOptions;
} {
  const tools: UpstreamTool[] = [];
  const toolRoutes: Record<string, ToolRoute> = {};
  const droppedTools: string[] = [];
  for (const tool of body.tools ?? []) {
    if (tool.type && tool.type !== "custom") {
      droppedTools.push(tool.type);
      continue;
    }
    tools.push({
      type: "function",
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.input_schema ?? { type: "object", properties: {} },
      },
    });
    toolRoutes[tool.name] = { kind: "function", name: tool.name };
  }
  const full = body as Partial<MessagesRequestBody>;
  const sampling: Record<string, unknown> = {};
  if (full.temperature !== undefined) sampling.temperature = full.temperature;
  if (full.top_p !== undefined) sampling.top_p = full.top_p;
  if (full.stop_sequences?.length) sampling.stop = full.stop_sequences;
  if (full.max_tokens) sampling.max_completion_tokens = full.max_tokens;
  const hasTools = tools.length > 0;
  const toolChoice = hasTools ? toolChoiceOf(body.tool_choice) : undefined;
  const disableParallel = body.tool_choice?.disable_parallel_tool_use;
  const edits = body.context_management?.edits ?? [];
  const clearThinking = edits.find((edit) => edit.type === "clear_thinking_20251015");
  const keepThinkingTurns = keepThinkingOf(clearThinking);
  const session = sessionOf(body.metadata);
  const thinking = thinkingOf(full.thinking);
  const system = typeof body.system === "string" ? body.system : (body.system ?? []);
  const turn: ClientTurn = {
    api: "messages",
    model: body.model,
    system: typeof system === "string" ? system : system.map((block) => blocksText([block])).join("\n\n"),
    items: messagesToFacts(body.messages as Array<{ role: "user"; content: string | WireBlock[] }>),
    tools,
    toolRoutes,
    droppedTools,
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(hasTools && typeof disableParallel === "boolean" ? { parallelToolCalls: !disableParallel } : {}),
    ...(full.max_tokens ? { maxOutputTokens: full.max_tokens } : {}),
    sampling,
    stream: full.stream === true,
    includeUsage: true,
    ...(session ? { promptCacheKey: session } : {}),
    ...(keepThinkingTurns !== undefined ? { keepReasoningTurns: keepThinkingTurns } : {}),
    ...(thinking ? { thinking } : {}),
  };
  return {
    turn,
    options: {
      thinking: body.thinking !== undefined && body.thinking.type !== "disabled",
      cacheControl: hasCacheControl([body.system, body.tools, body.messages.map((m) => m.content)]),
      contextEdits: edits.map((edit) => edit.type),
    },
  };
}
