/** An error as OpenAI-compatible clients parse it: `{error: {message, type, code, param}}`. */
export interface ApiErrorBody {
  error: { message: string; type: string; code: string | null; param: string | null };
}

/** Error code a client gets when longrun cannot fit the conversation into the model's window. */
export const CONTEXT_EXHAUSTED = "context_exhausted";

/** The body of an error response. */
export function apiErrorBody(code: string, message: string, type = "invalid_request_error"): ApiErrorBody {
  return { error: { message, type, code, param: null } };
}

/**
 * The error a client shows when the conversation no longer fits. Worded so that clients do not read
 * it as a provider context overflow (which would make them compact and retry forever): the status is
 * 400, the code is `context_exhausted`, and the message avoids the phrases clients match for overflow.
 */
export function contextExhaustedBody(reason: string): ApiErrorBody {
  return apiErrorBody(
    CONTEXT_EXHAUSTED,
    `longrun: this conversation cannot continue in the model's window (${reason.replace(/^context exhausted: /, "")}). Start a new session.`,
  );
}
