import { type ChatResult, handleChat, type SimState } from "../handle-chat.ts";
import { blankLogEntry } from "../request-log.ts";
import { type FormatResult, isRecord } from "./format-result.ts";
import { responsesToWire } from "./responses-in.ts";
import { chatAnswerOf, responseEvents, responseOf } from "./responses-out.ts";

function errorJson(status: number, message: string, param: string | null, code: string | null): FormatResult {
  const type = status === 429 ? "rate_limit_error" : status >= 500 ? "server_error" : "invalid_request_error";
  return { status, headers: {}, json: { error: { message, type, param, code } } };
}

/**
 * The chat handler's refusal in Responses terms: the chain check names the reasoning item, an
 * overflow says what OpenAI's Responses endpoint says; the rest keeps OpenAI's envelope.
 */
function refusalOf(result: Extract<ChatResult, { json: unknown }>): FormatResult {
  const error = (result.json as { error: { message: string; param: string | null; code: string | null } })
    .error;
  if (error.code === "invalid_encrypted_content")
    return errorJson(
      400,
      "The encrypted content for a reasoning item could not be verified.",
      "input",
      error.code,
    );
  if (error.code === "context_length_exceeded")
    return errorJson(
      400,
      "Your input exceeds the context window of this model. Please adjust your input and try again.",
      "input",
      error.code,
    );
  return { status: result.status, headers: result.headers, json: result.json };
}

/** `POST /v1/responses`: the strict rules of `store: false` chains, then the scripted agent or a summary. */
export async function handleResponses(
  state: SimState,
  body: unknown,
  header: (name: string) => string | undefined,
): Promise<FormatResult> {
  const origin = { api: "responses" as const, body };
  if (!isRecord(body) || typeof body.model !== "string") {
    state.log.add(blankLogEntry({ api: "responses", status: 400, errorCode: "invalid_request", body }));
    return errorJson(400, "Missing required parameter: 'model'.", "model", null);
  }
  const wire = responsesToWire(body);
  if ("status" in wire) {
    state.log.add(
      blankLogEntry({
        api: "responses",
        model: body.model,
        status: wire.status,
        errorCode: wire.code ?? "invalid_request",
        body,
      }),
    );
    return errorJson(wire.status, wire.message, wire.param, wire.code);
  }
  const chat = {
    model: body.model,
    messages: wire.messages,
    ...(wire.tools.length > 0 ? { tools: wire.tools } : {}),
    ...(wire.tools.length > 0 && typeof body.tool_choice === "string"
      ? { tool_choice: body.tool_choice }
      : {}),
    ...(typeof body.max_output_tokens === "number" ? { max_tokens: body.max_output_tokens } : {}),
    ...(body.parallel_tool_calls === false ? { parallel_tool_calls: false } : {}),
  };
  const result = await handleChat(state, chat, header, origin);
  if (!("json" in result)) throw new Error("the chat handler streamed a request that asked for no stream");
  if (result.status !== 200) return refusalOf(result);
  const answer = chatAnswerOf(result.json);
  if (body.stream === true)
    return { status: 200, headers: result.headers, events: responseEvents(answer, body) };
  return { status: 200, headers: result.headers, json: responseOf(answer, body) };
}
