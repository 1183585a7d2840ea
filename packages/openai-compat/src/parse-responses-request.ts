import type { NewMessage, ProviderState } from "@longrun/protocol";
import { z } from "zod";
import type { ClientTurn, ToolRoute, UpstreamTool } from "./client-turn.ts";
import { textOf, toFactContent, type WirePart } from "./content.ts";
import { decodeProviderState } from "./encrypted-state.ts";
import { SAMPLING_FIELDS } from "./parse-chat-request.ts";

const Item = z.looseObject({ type: z.string().optional(), role: z.string().optional() });
const ToolIn = z.looseObject({ type: z.string(), name: z.string().optional() });

/** The Responses request body as clients send it (unknown fields are kept and ignored). */
export const ResponsesRequestBody = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(Item)]),
  instructions: z.string().nullable().optional(),
  tools: z.array(ToolIn).optional(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  stream: z.boolean().nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  previous_response_id: z.string().nullable().optional(),
  reasoning: z.looseObject({ effort: z.string().nullable().optional() }).nullable().optional(),
});
export type ResponsesRequestBody = z.infer<typeof ResponsesRequestBody>;

type RawItem = Record<string, unknown>;

const MAX_TOOL_NAME = 64;

/** The upstream name of a function inside a namespace tool (upstream function names are flat). */
export function namespacedName(namespace: string, name: string): string {
  return `${namespace}__${name}`.slice(0, MAX_TOOL_NAME);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return textOf(toFactContent(output as WirePart[]));
  if (output && typeof output === "object" && typeof (output as { content?: unknown }).content === "string")
    return (output as { content: string }).content;
  return output === undefined || output === null ? "" : JSON.stringify(output);
}

function translateTools(
  tools: RawItem[] | undefined,
): Pick<ClientTurn, "tools" | "toolRoutes" | "droppedTools"> {
  const upstream: UpstreamTool[] = [];
  const toolRoutes: Record<string, ToolRoute> = {};
  const droppedTools: string[] = [];
  const addFunction = (tool: RawItem, namespace?: string) => {
    const name = str(tool.name);
    if (!name) return;
    const upstreamName = namespace ? namespacedName(namespace, name) : name;
    upstream.push({
      type: "function",
      function: {
        name: upstreamName,
        ...(str(tool.description) !== undefined ? { description: str(tool.description) } : {}),
        ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
        ...(typeof tool.strict === "boolean" ? { strict: tool.strict } : {}),
      },
    });
    toolRoutes[upstreamName] = { kind: "function", name, ...(namespace ? { namespace } : {}) };
  };
  for (const tool of tools ?? []) {
    if (tool.type === "function") addFunction(tool);
    else if (tool.type === "namespace" && Array.isArray(tool.tools)) {
      for (const inner of tool.tools as RawItem[]) {
        if (inner.type === "function") addFunction(inner, str(tool.name) ?? "ns");
        else droppedTools.push(`${String(tool.name)}.${String(inner.type)}`);
      }
    } else if (tool.type === "custom" && str(tool.name)) {
      // A freeform tool travels upstream as a function taking one string.
      const name = str(tool.name) as string;
      const format = tool.format ? `\nInput format: ${JSON.stringify(tool.format).slice(0, 2_000)}` : "";
      upstream.push({
        type: "function",
        function: {
          name,
          description: `${str(tool.description) ?? ""}${format}`,
          parameters: {
            type: "object",
            properties: { input: { type: "string", description: "The raw input of the tool." } },
            required: ["input"],
          },
        },
      });
      toolRoutes[name] = { kind: "custom", name };
    } else droppedTools.push(String(tool.type));
  }
  return { tools: upstream, toolRoutes, droppedTools };
}

function toolChoiceOf(choice: unknown, routes: Record<string, ToolRoute>): unknown {
  if (choice === undefined || choice === null || typeof choice === "string") return choice ?? undefined;
  const named = choice as { type?: string; name?: string; namespace?: string };
  if ((named.type === "function" || named.type === "custom") && named.name) {
    const name = named.namespace ? namespacedName(named.namespace, named.name) : named.name;
    return routes[name] ? { type: "function", function: { name } } : "auto";
  }
  return "auto";
}

/** Folds Responses input items into facts: reasoning, text and calls of one answer become one message. */
function toFacts(items: RawItem[]): NewMessage[] {
  const facts: NewMessage[] = [];
  let open: NewMessage | null = null;
  let state: ProviderState | null = null;
  const close = () => {
    if (open) facts.push(open);
    open = null;
  };
  const attachState = (message: NewMessage) => {
    if (state) message.providerState = { ...message.providerState, ...state };
    state = null;
  };
  for (const item of items) {
    const type = str(item.type) ?? (item.role ? "message" : "unknown");
    if (type === "reasoning") {
      const decoded = decodeProviderState(str(item.encrypted_content));
      if (decoded) state = { ...((state as ProviderState | null) ?? {}), ...decoded };
      continue;
    }
    if (type === "message" && item.role === "assistant") {
      const content = toFactContent(item.content as string | WirePart[]);
      const current = open as NewMessage | null;
      if (current && textOf(current.content) === "" && !current.toolCalls) current.content = content;
      else {
        close();
        open = { role: "assistant", content };
      }
      attachState(open as unknown as NewMessage);
      continue;
    }
    if (type === "function_call" || type === "custom_tool_call") {
      const current: NewMessage = open ?? { role: "assistant", content: null };
      open = current;
      const name = str(item.name) ?? "";
      const namespace = str(item.namespace);
      const upstreamName = namespace ? namespacedName(namespace, name) : name;
      const args =
        type === "custom_tool_call"
          ? JSON.stringify({ input: str(item.input) ?? "" })
          : (str(item.arguments) ?? "");
      const callId = str(item.call_id) ?? str(item.id) ?? "";
      current.toolCalls = [
        ...(current.toolCalls ?? []),
        { id: callId, type: "function", function: { name: upstreamName, arguments: args } },
      ];
      if (textOf(current.content) === "") current.content = null;
      attachState(current);
      continue;
    }
    close();
    state = null;
    if (type === "function_call_output" || type === "custom_tool_call_output") {
      facts.push({ role: "tool", content: outputText(item.output), toolCallId: str(item.call_id) ?? "" });
    } else if (type === "message") {
      const content = toFactContent(item.content as string | WirePart[]);
      const role = item.role === "system" || item.role === "developer" ? "system" : "user";
      facts.push({ role, content });
    }
    // Built-in tool items (web_search_call, local_shell_call, compaction, compaction_trigger…) have no
    // upstream form: left out.
  }
  close();
  return facts;
}

/** A Responses request as a client turn: `instructions` and leading system/developer items become the system text. */
export function parseResponsesRequest(body: ResponsesRequestBody): ClientTurn {
  const items: RawItem[] =
    typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : body.input;
  const system: string[] = body.instructions ? [body.instructions] : [];
  let index = 0;
  while (index < items.length) {
    const item = items[index]!;
    const isMessage = (item.type ?? "message") === "message";
    if (!isMessage || (item.role !== "system" && item.role !== "developer")) break;
    system.push(textOf(toFactContent(item.content as string | WirePart[])));
    index += 1;
  }
  const translated = translateTools(body.tools as RawItem[] | undefined);
  const sampling: Record<string, unknown> = {};
  for (const field of SAMPLING_FIELDS) {
    const value = (body as Record<string, unknown>)[field];
    if (value !== undefined && value !== null) sampling[field] = value;
  }
  if (body.reasoning?.effort) sampling.reasoning_effort = body.reasoning.effort;
  if (body.max_output_tokens) sampling.max_completion_tokens = body.max_output_tokens;
  const hasTools = translated.tools.length > 0;
  // Codex marks a request that asks for a compaction with this item (it has no upstream form).
  const compactionRequested = items.some((item) => item.type === "compaction_trigger");
  const toolChoice = hasTools ? toolChoiceOf(body.tool_choice, translated.toolRoutes) : undefined;
  return {
    api: "responses",
    model: body.model,
    system: system.join("\n\n"),
    items: toFacts(items.slice(index)),
    ...translated,
    ...(toolChoice !== undefined ? { toolChoice } : {}),
    ...(hasTools && typeof body.parallel_tool_calls === "boolean"
      ? { parallelToolCalls: body.parallel_tool_calls }
      : {}),
    ...(body.max_output_tokens ? { maxOutputTokens: body.max_output_tokens } : {}),
    sampling,
    stream: body.stream === true,
    includeUsage: true,
    ...(body.prompt_cache_key ? { promptCacheKey: body.prompt_cache_key } : {}),
    ...(compactionRequested ? { compactionRequested } : {}),
  };
}
