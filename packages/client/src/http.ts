import { ErrorBody } from "@longrun/protocol";
import { LongrunApiError } from "./errors.ts";

/** A response validator: a zod schema from the protocol, or any object with a compatible `parse`. */
export interface Parser<Output> {
  parse(value: unknown): Output;
}

export interface HttpOptions {
  baseUrl: string;
  token: string;
  fetch: typeof fetch;
}

export type QueryValue = string | number | undefined;

export interface RequestInput {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
}

/** Performs one JSON request and validates the answer; API errors become LongrunApiError. */
export async function requestJson<Output>(
  http: HttpOptions,
  input: RequestInput,
  parser: Parser<Output>,
): Promise<Output> {
  const url = new URL(`${http.baseUrl.replace(/\/+$/, "")}${input.path}`);
  for (const [key, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = {
    authorization: `Bearer ${http.token}`,
    accept: "application/json",
  };
  if (input.body !== undefined) headers["content-type"] = "application/json";
  let response: Response;
  try {
    response = await http.fetch(url, {
      method: input.method,
      headers,
      ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
    });
  } catch (error) {
    throw new LongrunApiError(0, "unavailable", `request failed: ${(error as Error).message}`, error);
  }
  const text = await response.text();
  let json: unknown = null;
  if (text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      if (response.ok) throw new LongrunApiError(response.status, "bad_response", "response is not JSON");
    }
  }
  if (!response.ok) {
    const body = ErrorBody.safeParse(json);
    if (body.success) {
      const { code, message, details } = body.data.error;
      throw new LongrunApiError(response.status, code, message, details);
    }
    throw new LongrunApiError(response.status, codeOfStatus(response.status), text || response.statusText);
  }
  try {
    return parser.parse(json);
  } catch (error) {
    throw new LongrunApiError(
      response.status,
      "bad_response",
      `unexpected response from ${input.method} ${input.path}`,
      error,
    );
  }
}

function codeOfStatus(status: number): string {
  if (status === 400) return "bad_request";
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 404) return "not_found";
  if (status === 409) return "conflict";
  if (status === 413) return "payload_too_large";
  if (status === 415) return "unsupported_media_type";
  if (status === 426) return "upgrade_required";
  if (status === 429) return "rate_limited";
  if (status === 503) return "unavailable";
  return "internal";
}
