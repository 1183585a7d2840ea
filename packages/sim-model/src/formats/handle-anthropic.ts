import { type ChatResult, handleChat, type SimState } from "../handle-chat.ts";
import { blankLogEntry } from "../request-log.ts";
import { anthropicToWire } from "./anthropic-in.ts";
import { anthropicEvents, anthropicMessageOf } from "./anthropic-out.ts";
import { type FormatResult, isRecord } from "./format-result.ts";
import { chatAnswerOf } from "./responses-out.ts";

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

function errorJson(status: number, message: string, headers: Record<string, string> = {}): FormatResult {
  const type = ERROR_TYPES[status] ?? "api_error";
  return { status, headers, json: { type: "error", error: { type, message } } };
}

/** The chat handler's refusal in Anthropic's envelope; an overflow in Anthropic's words. */
function refusalOf(result: Extract<ChatResult, { json: unknown }>): FormatResult {
  const error = (result.json as { error: { message: string; code: string | null } }).error;
  if (error.code === "context_length_exceeded") {
    const [window = "0", tokens = "0"] = (error.message.match(/\d+/g) ?? []) as string[];
    return errorJson(400, `prompt is too long: ${tokens} tokens > ${window} maximum`);
  }
  return errorJson(result.status, error.message, result.headers);
}

/** `POST /v1/messages`: Anthropic's rules (thinking, tool_result adjacency, breakpoints), then the script. */
export async function handleAnthropic(
  state: SimState,
  body: unknown,
  header: (name: string) => string | undefined,
): Promise<FormatResult> {
  if (!isRecord(body) || typeof body.model !== "string") {
    state.log.add(
      blankLogEntry({ api: "anthropic-messages", status: 400, errorCode: "invalid_request", body }),
    );
    return errorJson(400, "model: Field required");
  }
  const wire = anthropicToWire(body, state.config.secret);
  if ("status" in wire) {
    state.log.add(
      blankLogEntry({
        api: "anthropic-messages",
        model: body.model,
        status: wire.status,
        errorCode: wire.type,
        body,
      }),
    );
    return errorJson(wire.status, wire.message);
  }
  const choice = isRecord(body.tool_choice) ? body.tool_choice : undefined;
  const toolChoice =
    choice?.type === "none"
      ? "none"
      : choice?.type === "any"
        ? "required"
        : choice?.type === "tool"
          ? { type: "function", function: { name: choice.name } }
          : undefined;
  const chat = {
    model: body.model,
    messages: wire.messages,
    ...(wire.tools.length > 0
      ? { tools: wire.tools, ...(toolChoice ? { tool_choice: toolChoice } : {}) }
      : {}),
    max_tokens: body.max_tokens,
    ...(choice?.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {}),
  };
  const result = await handleChat(state, chat, header, { api: "anthropic-messages", body });
  if (!("json" in result)) throw new Error("the chat handler streamed a request that asked for no stream");
  if (result.status !== 200) return refusalOf(result);
  const message = anthropicMessageOf(chatAnswerOf(result.json), wire.thinking, state.config.secret);
  if (body.stream === true) return { status: 200, headers: result.headers, events: anthropicEvents(message) };
  return { status: 200, headers: result.headers, json: message };
}
