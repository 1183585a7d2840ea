/** An error as Anthropic clients parse it. */
export interface MessagesErrorBody {
  type: "error";
  error: { type: string; message: string };
}

/** The Anthropic error type of an HTTP status. */
export function errorTypeOf(status: number): string {
  switch (status) {
    case 400:
    case 415:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 503:
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/** The body of an error response, or of the `error` event of a stream. */
export function messagesErrorBody(status: number, message: string): MessagesErrorBody {
  return { type: "error", error: { type: errorTypeOf(status), message } };
}
