import { backoffDelay } from "@longrun/protocol";
/** Options of `withProviderRetry`; `random` and `sleep` are injectable for tests. */
export interface ProviderRetryOptions {
  /** Total attempts including the first (default 5). */
  maxAttempts?: number;
  /** Backoff base (default 500 ms): attempt n waits up to baseMs * 2^(n-1). */
  baseMs?: number;
  /** Backoff cap (default 30 s). */
  maxMs?: number;
  /** A server's retry-after longer than this is not waited for; the error is thrown (default 60 s). */
  maxRetryAfterMs?: number;
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
  /** Called before each wait, e.g. to log or emit an event. */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

interface ErrorShape {
  status?: unknown;
  code?: unknown;
  type?: unknown;
  name?: unknown;
  message?: unknown;
  headers?: unknown;
  error?: unknown;
  cause?: unknown;
}

function shape(error: unknown): ErrorShape {
  return typeof error === "object" && error !== null ? (error as ErrorShape) : {};
}

function statusOf(error: unknown): number | undefined {
  const status = shape(error).status;
  return typeof status === "number" ? status : undefined;
}

// The code may sit on the error (openai APIError) or in its JSON body ({error: {code}}).
function codesOf(error: unknown): string[] {
  const outer = shape(error);
  const body = shape(outer.error);
  const nested = shape(body.error);
  return [outer.code, body.code, nested.code, outer.type, body.type].filter(
    (code): code is string => typeof code === "string",
  );
}

function messageOf(error: unknown): string {
  const outer = shape(error);
  const body = shape(outer.error);
  return [outer.message, body.message].filter((text) => typeof text === "string").join(" ");
}

function header(error: unknown, name: string): string | undefined {
  const headers = shape(error).headers;
  if (!headers || typeof headers !== "object") return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, unknown>)[name];
  return typeof value === "string" ? value : undefined;
}

const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/** True for OpenAI-style "context_length_exceeded" (by code, or by the providers' usual wording). */
export function isContextOverflow(error: unknown): boolean {
  if (codesOf(error).includes("context_length_exceeded")) return true;
  const status = statusOf(error);
  if (status !== undefined && status !== 400 && status !== 413) return false;
  return /context_length_exceeded|maximum context length|context window|prompt is too long|too many input tokens/i.test(
    messageOf(error),
  );
}

/** True when the provider rejected replayed encrypted reasoning state. */
export function isInvalidEncryptedContent(error: unknown): boolean {
  if (codesOf(error).includes("invalid_encrypted_content")) return true;
  // Anthropic's word for the same: a thinking block's signature (or redacted data) it cannot verify.
  return /invalid_encrypted_content|encrypted content .*could not be (decrypted|verified)|Invalid `(signature|data)` in `(redacted_)?thinking` block/i.test(
    messageOf(error),
  );
}

// openai's error classes do not set `name`, so the class name is checked too.
function kindOf(error: unknown): string[] {
  const named = shape(error).name;
  const constructorName =
    typeof error === "object" && error !== null
      ? (error as { constructor?: { name?: unknown } }).constructor?.name
      : undefined;
  return [named, constructorName].filter((kind): kind is string => typeof kind === "string");
}

/** True for a request that was aborted on purpose (our signal), which must never be retried. */
function isAbort(error: unknown): boolean {
  return kindOf(error).some((kind) => kind === "AbortError" || kind === "APIUserAbortError");
}

/** Should this provider error be retried? 408/409/429 (not quota), 5xx, and connection failures. */
export function isRetryableProviderError(error: unknown): boolean {
  if (isAbort(error)) return false;
  const status = statusOf(error);
  if (status !== undefined) {
    if (status === 429) return !codesOf(error).includes("insufficient_quota"); // quota does not come back
    return status === 408 || status === 409 || status >= 500;
  }
  if (kindOf(error).some((kind) => kind === "APIConnectionError" || kind === "APIConnectionTimeoutError")) {
    return true;
  }
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = shape(current).code;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    current = shape(current).cause;
  }
  return error instanceof TypeError && /fetch failed|network|socket/i.test(error.message);
}

/**
 * True for provider errors that no retry can fix: a 4xx other than timeouts, conflicts and rate
 * limits (an unknown model, bad credentials, a malformed request). Context overflow is not one: the
 * runtime answers it with a compaction.
 */
export function isPermanentProviderError(error: unknown): boolean {
  if (isAbort(error) || isContextOverflow(error) || isInvalidEncryptedContent(error)) return false;
  const status = statusOf(error);
  if (status === undefined || status < 400 || status >= 500) return false;
  if (status === 429) return codesOf(error).includes("insufficient_quota");
  return status !== 408 && status !== 409;
}

/** The wait a server asked for (retry-after-ms, retry-after seconds or HTTP date), in ms. */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  const millis = header(error, "retry-after-ms");
  if (millis !== undefined && Number.isFinite(Number.parseFloat(millis))) {
    return Math.max(0, Number.parseFloat(millis));
  }
  const value = header(error, "retry-after");
  if (value === undefined) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Sleep that ends early (rejecting) when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Run a provider call, retrying rate limits, 5xx and connection errors with exponential backoff and
 * full jitter (or the server's retry-after). 4xx such as 400 (including context overflow) are thrown
 * at once. Give the openai client `maxRetries: 0` so retries are not multiplied.
 */
export async function withProviderRetry<T>(
  fn: (attempt: number) => Promise<T>,
  options: ProviderRetryOptions = {},
): Promise<T> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const baseMs = options.baseMs ?? 500;
  const maxMs = options.maxMs ?? 30_000;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 60_000;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (attempt >= maxAttempts || !isRetryableProviderError(error)) throw error;
      const asked = retryAfterMs(error);
      if (asked !== undefined && asked > maxRetryAfterMs) throw error;
      const delayMs = asked ?? backoffDelay(attempt, { baseMs, capMs: maxMs, jitter: 1 }, random);
      options.onRetry?.({ attempt, delayMs, error });
      await sleep(delayMs, options.signal);
    }
  }
}
