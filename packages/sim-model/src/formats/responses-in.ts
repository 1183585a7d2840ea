import type {
  WireContent,
  WireImagePart,
  WireMessage,
  WireReasoningDetail,
  WireTextPart,
  WireTool,
} from "../wire.ts";
import { isRecord } from "./format-result.ts";

/** A request the Responses endpoint refuses: status, message, param, code (OpenAI's envelope). */
export interface ResponsesRefusal {
  status: number;
  message: string;
  param: string | null;
  code: string | null;
}

const refuse = (status: number, message: string, param: string | null, code: string | null = null) =>
  ({ status, message, param, code }) satisfies ResponsesRefusal;

/** Under `store: false` nothing is kept, so any reference to an earlier item names nothing. */
function notFound(id: string): ResponsesRefusal {
  return refuse(
    404,
    `Item with id '${id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
    "input",
  );
}

function contentOf(content: unknown): WireContent {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.flatMap((part): Array<WireTextPart | WireImagePart> => {
    if (!isRecord(part)) return [];
    if ((part.type === "input_text" || part.type === "output_text") && typeof part.text === "string")
      return [{ type: "text" as const, text: part.text }];
    if (part.type === "input_image" && typeof part.image_url === "string")
      return [{ type: "image_url" as const, image_url: { url: part.image_url } }];
    return [];
  });
}

/**
 * The strict rules of a Responses request under `store: false`, then its input as Chat Completions
 * messages (reasoning items on the assistant turn they precede, so the chain check of the chat handler
 * judges them): a refusal, or the messages and tools.
 */
export function responsesToWire(
  body: Record<string, unknown>,
): ResponsesRefusal | { messages: WireMessage[]; tools: WireTool[] } {
  const stored = body.store !== false;
  if (typeof body.previous_response_id === "string")
    return refuse(
      400,
      `Previous response with id '${body.previous_response_id}' not found.`,
      "previous_response_id",
    );
  const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : body.input;
  if (!Array.isArray(input))
    return refuse(400, "Invalid type for 'input': expected a string or an array.", "input");
  const messages: WireMessage[] = [];
  if (typeof body.instructions === "string") messages.push({ role: "system", content: body.instructions });
  let turn: WireMessage | null = null;
  const calls = new Set<string>();
  const outputs = new Set<string>();
  for (const [index, item] of input.entries()) {
    if (!isRecord(item)) return refuse(400, `Invalid input item at index ${index}.`, `input[${index}]`);
    const type = item.type ?? "message";
    if (type === "item_reference") return notFound(String(item.id));
    if (!stored && typeof item.id === "string") return notFound(item.id);
    if (type === "reasoning") {
      if (typeof item.encrypted_content !== "string") return notFound(String(item.id ?? `input[${index}]`));
      turn ??= { role: "assistant", content: null };
      if (turn !== messages.at(-1)) messages.push(turn);
      const detail: WireReasoningDetail = { type: "reasoning.encrypted", data: item.encrypted_content };
      turn.reasoning_details = [...(turn.reasoning_details ?? []), detail];
    } else if (type === "function_call") {
      if (
        typeof item.call_id !== "string" ||
        typeof item.name !== "string" ||
        typeof item.arguments !== "string"
      )
        return refuse(
          400,
          "Missing required parameter: 'call_id', 'name' or 'arguments'.",
          `input[${index}]`,
        );
      turn ??= { role: "assistant", content: null };
      if (turn !== messages.at(-1)) messages.push(turn);
      calls.add(item.call_id);
      const call = {
        id: item.call_id,
        type: "function" as const,
        function: { name: item.name, arguments: item.arguments },
      };
      turn.tool_calls = [...(turn.tool_calls ?? []), call];
    } else if (type === "function_call_output") {
      const callId = String(item.call_id);
      if (!calls.has(callId))
        return refuse(400, `No tool call found for function call output with call_id ${callId}.`, "input");
      outputs.add(callId);
      turn = null;
      messages.push({
        role: "tool",
        tool_call_id: callId,
        content: typeof item.output === "string" ? item.output : "",
      });
    } else if (type === "message" && item.role === "assistant") {
      if (turn?.tool_calls || turn?.content) turn = null;
      turn ??= { role: "assistant", content: null };
      if (turn !== messages.at(-1)) messages.push(turn);
      turn.content = contentOf(item.content);
    } else if (type === "message" && ["system", "developer", "user"].includes(String(item.role))) {
      turn = null;
      messages.push({ role: item.role as "system" | "developer" | "user", content: contentOf(item.content) });
    } else {
      return refuse(400, `Invalid value: '${String(type)}'.`, `input[${index}].type`);
    }
  }
  for (const call of calls)
    if (!outputs.has(call)) return refuse(400, `No tool output found for function call ${call}.`, "input");
  const tools: WireTool[] = [];
  for (const tool of Array.isArray(body.tools) ? body.tools : []) {
    if (!isRecord(tool) || tool.type !== "function" || typeof tool.name !== "string") continue;
    tools.push({
      type: "function",
      function: {
        name: tool.name,
        ...(typeof tool.description === "string" ? { description: tool.description } : {}),
        parameters: tool.parameters,
      },
    });
  }
  return { messages, tools };
}
