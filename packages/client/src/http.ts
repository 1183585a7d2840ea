import { backoffDelay } from "@longrun/protocol";
import { abortableDelay } from "./abortable-delay.ts";
import {
  AbortError,
  ConnectionError,
  errorForStatus,
  InternalServerError,
  LongrunError,
  RateLimitError,
  TimeoutError,
} from "./errors.ts";

/** A response validator: a zod schema from the protocol, or any object with a compatible `parse`. */
export interface Parser<Output> {
  parse(value: unknown): Output;
}

/** Per-call options, the last argument of every method (as the OpenAI SDK's `RequestOptions`). */
export interface RequestOptions {
  /** Ends the call (and its retries) with an AbortError. */
  signal?: AbortSignal | undefined;
  /** Milliseconds one attempt may take before it fails with a TimeoutError. */
  timeout?: number | undefined;
  /** Retries after a 429, a 5xx or a network failure; only for idempotent operations. */
  maxRetries?: number | undefined;
}

export interface HttpOptions {
  baseUrl: string;
  token: string;
  fetch: typeof fetch;
  timeout: number;
  maxRetries: number;
}

export type QueryValue = string | number | undefined;

export interface RequestInput {
  method: "GET" | "POST" | "DELETE";
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** Safe to send twice (GET, DELETE, and POSTs whose repetition changes nothing, such as cancel). */
  idempotent: boolean;
}

/** Delays between retries when the server does not say (`Retry-After`): 0.5 s doubling to 8 s, ±25 %. */
const RETRY_BACKOFF = { baseMs: 500, capMs: 8_000, jitter: 0.25 };
/** A `Retry-After` longer than this is not waited for: the error goes to the caller. */
const MAX_RETRY_AFTER_MS = 60_000;

/** Performs one JSON request, retried as its options allow, and validates the answer. */
export async function requestJson<Output>(
  http: HttpOptions,
  input: RequestInput,
  parser: Parser<Output>,
  options: RequestOptions = {},
): Promise<Output> {
  const maxRetries = options.maxRetries ?? http.maxRetries;
  for (let retry = 1; ; retry += 1) {
    const outcome = await attempt(http, input, options);
    if (outcome.ok) return parseAnswer(outcome, input, parser);
    const { error, retryAfterMs } = outcome;
    const retryable =
      input.idempotent &&
      (RateLimitError.isInstance(error) ||
        InternalServerError.isInstance(error) ||
        ConnectionError.isInstance(error));
    const delayMs = retryAfterMs ?? backoffDelay(retry, RETRY_BACKOFF);
    if (!retryable || retry > maxRetries || delayMs > MAX_RETRY_AFTER_MS) throw error;
    await abortableDelay(delayMs, options.signal).catch(() => {
      throw new AbortError("the request was aborted", { cause: options.signal?.reason });
    });
  }
}

type Attempt =
  | { ok: true; status: number; json: unknown; requestId: string | undefined }
  | { ok: false; error: LongrunError; retryAfterMs: number | undefined };

async function attempt(http: HttpOptions, input: RequestInput, options: RequestOptions): Promise<Attempt> {
  const url = new URL(`${http.baseUrl.replace(/\/+$/, "")}${input.path}`);
  for (const [key, value] of Object.entries(input.query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = {
    authorization: `Bearer ${http.token}`,
    accept: "application/json",
  };
  if (input.body !== undefined) headers["content-type"] = "application/json";
  const timeout = AbortSignal.timeout(options.timeout ?? http.timeout);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  let text: string;
  try {
    response = await http.fetch(url, {
      method: input.method,
      headers,
      signal,
      ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
    });
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted)
      return {
        ok: false,
        error: new AbortError("the request was aborted", { cause: error }),
        retryAfterMs: 0,
      };
    const where = `${input.method} ${input.path}`;
    if (timeout.aborted)
      return {
        ok: false,
        error: new TimeoutError(`${where} timed out`, { cause: error }),
        retryAfterMs: undefined,
      };
    const reason = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    return {
      ok: false,
      error: new ConnectionError(`${where} failed: ${reason}`, { code: "unavailable", cause: error }),
      retryAfterMs: undefined,
    };
  }
  const requestId = response.headers.get("x-request-id") ?? undefined;
  let json: unknown = null;
  if (text.length > 0) {
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
  }
  if (response.ok) {
    if (json === undefined)
      return {
        ok: false,
        error: new LongrunError("response is not JSON", {
          status: response.status,
          code: "bad_response",
          requestId,
        }),
        retryAfterMs: undefined,
      };
    return { ok: true, status: response.status, json, requestId };
  }
  const retryAfterMs = retryAfter(response.headers);
  const body = (json as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)
    ?.error;
  const message = typeof body?.message === "string" ? body.message : text || response.statusText;
  const error = errorForStatus(response.status, message, {
    code: typeof body?.code === "string" ? body.code : codeOfStatus(response.status),
    requestId,
    details: body?.details,
    retryAfter: retryAfterMs === undefined ? undefined : retryAfterMs / 1000,
  });
  return { ok: false, error, retryAfterMs };
}

function parseAnswer<Output>(
  outcome: { status: number; json: unknown; requestId: string | undefined },
  input: RequestInput,
  parser: Parser<Output>,
): Output {
  try {
    return parser.parse(outcome.json);
  } catch (error) {
    throw new LongrunError(`unexpected response from ${input.method} ${input.path}`, {
      status: outcome.status,
      code: "bad_response",
      requestId: outcome.requestId,
      details: error,
    });
  }
}

/** `Retry-After-Ms` (as OpenAI sends), else `Retry-After` in seconds or as an HTTP date; in milliseconds. */
function retryAfter(headers: Headers): number | undefined {
  const milliseconds = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = headers.get("retry-after");
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
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
