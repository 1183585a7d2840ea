/** Error codes the sim model answers with (OpenAI's where OpenAI has one). */
export const SIM_ERROR_CODES = {
  missingToolResult: "missing_tool_result",
  unknownToolCallId: "unknown_tool_call_id",
  duplicateToolResult: "duplicate_tool_result",
  contextLengthExceeded: "context_length_exceeded",
  invalidEncryptedContent: "invalid_encrypted_content",
  invalidRequest: "invalid_request",
  modelNotFound: "model_not_found",
  rateLimitExceeded: "rate_limit_exceeded",
  serverError: "server_error",
  summaryFailed: "summary_failed",
} as const;
export type SimErrorCode = (typeof SIM_ERROR_CODES)[keyof typeof SIM_ERROR_CODES];

export type SimErrorType = "invalid_request_error" | "rate_limit_error" | "server_error" | "not_found_error";

/** A provider-shaped error answer: HTTP status plus the `{error: {...}}` body. */
export interface SimError {
  name: "SimError";
  status: number;
  type: SimErrorType;
  code: SimErrorCode;
  message: string;
  param: string | null;
  headers?: Record<string, string>;
}

/** Build a 400 `invalid_request_error`. */
export function invalidRequest(code: SimErrorCode, message: string, param: string | null = null): SimError {
  return { name: "SimError", status: 400, type: "invalid_request_error", code, message, param };
}

/** True when a value is a SimError (errors are data, checked by name). */
export function isSimError(value: unknown): value is SimError {
  return typeof value === "object" && value !== null && (value as { name?: unknown }).name === "SimError";
}

/** The JSON body real providers send with an error status. */
export function errorBody(error: SimError): {
  error: { message: string; type: string; param: string | null; code: string };
} {
  return { error: { message: error.message, type: error.type, param: error.param, code: error.code } };
}
