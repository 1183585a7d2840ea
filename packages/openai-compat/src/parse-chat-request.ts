import { type NewMessage, ReasoningDetail, type ToolCall } from "@longrun/protocol";
import { z } from "zod";
import type { ClientTurn, ToolRoute, UpstreamTool } from "./client-turn.ts";
import { textOf, toFactContent, type WirePart } from "./content.ts";

const Part = z.looseObject({ type: z.string() });
const ChatToolCall = z.object({
  id: z.string().min(1),
  type: z.string().optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string().optional() }),
});
const ChatMessageIn = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(Part), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(ChatToolCall).optional(),
  tool_call_id: z.string().optional(),
  reasoning_content: z.string().optional(),
  reasoning_details: z.array(z.looseObject({ type: z.string() })).optional(),
});
const ChatToolIn = z.looseObject({
  type: z.string(),
  function: z
    .looseObject({
      name: z.string().min(1),
      description: z.string().optional(),
      parameters: z.unknown().optional(),
      strict: z.boolean().nullable().optional(),
    })
    .optional(),
});

/** The Chat Completions request body as clients send it (unknown fields are kept and ignored). */
export const ChatRequestBody = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageIn).min(1),
  tools: z.array(ChatToolIn).optional(),
  tool_choice: z.unknown().optional(),
  parallel_tool_calls: z.boolean().optional(),
  stream: z.boolean().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
});
export type ChatRequestBody = z.infer<typeof ChatRequestBody>;

/** Sampling options passed upstream unchanged. */
export const SAMPLING_FIELDS = [
  "temperature",
  "top_p",
  "stop",
  "seed",
  "presence_penalty",
  "frequency_penalty",
  "logit_bias",
  "response_format",
  "reasoning_effort",
  "user",
  "max_tokens",
  "max_completion_tokens",
] as const;

function pickSampling(body: Record<string, unknown>): Record<string, unknown> {
  const sampling: Record<string, unknown> = {};
  for (const field of SAMPLING_FIELDS) if (body[field] !== undefined) sampling[field] = body[field];
  return sampling;
}

type ChatMessageIn = z.infer<typeof ChatMessageIn>;

function toFact(message: ChatMessageIn): NewMessage {
  const content = toFactContent(message.content as string | WirePart[] | null | undefined);
  switch (message.role) {
    case "assistant": {
      const toolCalls: ToolCall[] = (message.tool_calls ?? []).map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.function.name, arguments: call.function.arguments ?? "" },
      }));
      // Only the reasoning items longrun knows the shape of are kept: an item of another type (or a
      // known type missing its field) cannot be counted or replayed faithfully, so it is dropped.
      const details = message.reasoning_details?.flatMap((detail) => {
        const parsed = ReasoningDetail.safeParse(detail);
        return parsed.success ? [parsed.data] : [];
      });
      const hasState = (details?.length ?? 0) > 0 || !!message.reasoning_content;
      return {
        role: "assistant",
        content: toolCalls.length > 0 && textOf(content) === "" ? null : content,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(hasState
          ? {
              providerState: {
                ...(details?.length ? { reasoningDetails: details } : {}),
                ...(message.reasoning_content ? { reasoningContent: message.reasoning_content } : {}),
              },
            }
          : {}),
      };
    }
    case "tool":
      return { role: "tool", content: textOf(content), toolCallId: message.tool_call_id ?? "" };
    case "system":
    case "developer":
      return { role: "system", content };
    default:
      return { role: "user", content, ...(message.name ? { name: message.name } : {}) };
  }
}

/** A Chat Completions request as a client turn: leading system/developer messages become the system text. */
export function parseChatRequest(body: ChatRequestBody): ClientTurn {
  let index = 0;
  const system: string[] = [];
  while (index < body.messages.length) {
    const message = body.messages[index]!;
    if (message.role !== "system" && message.role !== "developer") break;
    system.push(textOf(toFactContent(message.content as string | WirePart[] | null | undefined)));
    index += 1;
  }
  const tools: UpstreamTool[] = [];
  const toolRoutes: Record<string, ToolRoute> = {};
  const droppedTools: string[] = [];
  for (const tool of body.tools ?? []) {
    if (tool.type !== "function" || !tool.function) {
      droppedTools.push(tool.type);
      continue;
    }
    const { name, description, parameters, strict } = tool.function;
    tools.push({
      type: "function",
      function: {
        name,
        ...(description !== undefined ? { description } : {}),
        ...(parameters !== undefined ? { parameters } : {}),
        ...(typeof strict === "boolean" ? { strict } : {}),
      },
    });
    toolRoutes[name] = { kind: "function", name };
  }
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  return {
    api: "chat",
    model: body.model,
    system: system.join("\n\n"),
    items: body.messages.slice(index).map(toFact),
    tools,
    toolRoutes,
    droppedTools,
    ...(body.tool_choice !== undefined && tools.length > 0 ? { toolChoice: body.tool_choice } : {}),
    ...(body.parallel_tool_calls !== undefined && tools.length > 0
      ? { parallelToolCalls: body.parallel_tool_calls }
      : {}),
    ...(maxOutputTokens ? { maxOutputTokens } : {}),
    sampling: pickSampling(body),
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
  };
}
