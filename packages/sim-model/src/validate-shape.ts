import { invalidRequest, SIM_ERROR_CODES, type SimError } from "./errors.ts";
import type { WireRequest } from "./wire.ts";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function bad(message: string, param: string): SimError {
  return invalidRequest(SIM_ERROR_CODES.invalidRequest, message, param);
}

function checkContent(content: unknown, param: string): SimError | undefined {
  if (content === undefined || content === null || typeof content === "string") return undefined;
  if (!Array.isArray(content)) return bad("Invalid type for content: expected a string or an array.", param);
  for (const [index, part] of content.entries()) {
    if (!isRecord(part)) return bad("Invalid content part.", `${param}[${index}]`);
    if (part.type === "text" && typeof part.text === "string") continue;
    if (part.type === "image_url" && isRecord(part.image_url)) continue;
    return bad(`Invalid content part type: '${String(part.type)}'.`, `${param}[${index}].type`);
  }
  return undefined;
}

function checkToolCalls(toolCalls: unknown, param: string): SimError | undefined {
  if (toolCalls === undefined) return undefined;
  if (!Array.isArray(toolCalls) || toolCalls.length === 0) {
    return bad("Invalid 'tool_calls': expected a non-empty array.", param);
  }
  for (const [index, call] of toolCalls.entries()) {
    const at = `${param}[${index}]`;
    if (!isRecord(call) || typeof call.id !== "string" || call.id.length === 0) {
      return bad("Missing required parameter: 'id'.", `${at}.id`);
    }
    if (call.type !== "function") return bad("Invalid value for 'type': expected 'function'.", `${at}.type`);
    const fn = call.function;
    if (!isRecord(fn) || typeof fn.name !== "string" || typeof fn.arguments !== "string") {
      return bad("Invalid 'function': expected {name: string, arguments: string}.", `${at}.function`);
    }
  }
  return undefined;
}

/** Structural validation of a Chat Completions request body (types and required fields). */
export function validateShape(body: unknown): WireRequest | SimError {
  if (!isRecord(body)) return bad("The request body must be a JSON object.", "body");
  if (typeof body.model !== "string" || body.model.length === 0) {
    return bad("Missing required parameter: 'model'.", "model");
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return bad("Missing required parameter: 'messages'.", "messages");
  }
  for (const [index, message] of body.messages.entries()) {
    const at = `messages.[${index}]`;
    if (!isRecord(message) || typeof message.role !== "string" || !ROLES.has(message.role)) {
      return bad(`Invalid value for 'role' in ${at}.`, `${at}.role`);
    }
    const contentError = checkContent(message.content, `${at}.content`);
    if (contentError) return contentError;
    // Like OpenAI: only an assistant message with tool_calls may omit its content.
    const hasCalls = Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
    if (message.content == null && !(message.role === "assistant" && hasCalls)) {
      return bad(`Invalid value for 'content': expected a string, got null.`, `${at}.content`);
    }
    if (message.tool_calls !== undefined && message.role !== "assistant") {
      return bad("Only assistant messages may carry 'tool_calls'.", `${at}.tool_calls`);
    }
    const callError = checkToolCalls(message.tool_calls, `${at}.tool_calls`);
    if (callError) return callError;
    if (message.role === "tool" && (typeof message.tool_call_id !== "string" || !message.tool_call_id)) {
      return bad("Missing required parameter: 'tool_call_id'.", `${at}.tool_call_id`);
    }
    if (message.reasoning_details !== undefined && !Array.isArray(message.reasoning_details)) {
      return bad("Invalid 'reasoning_details': expected an array.", `${at}.reasoning_details`);
    }
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return bad("Invalid 'tools': expected an array.", "tools");
    for (const [index, tool] of body.tools.entries()) {
      const fn = isRecord(tool) ? tool.function : undefined;
      if (!isRecord(tool) || tool.type !== "function" || !isRecord(fn) || typeof fn.name !== "string") {
        return bad("Invalid tool definition.", `tools[${index}]`);
      }
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name)) {
        return bad(`Invalid 'tools[${index}].function.name': '${fn.name}'.`, `tools[${index}].function.name`);
      }
    }
  }
  return body as unknown as WireRequest;
}
