const MARKER = Symbol.for("longrun.client.error");

interface ErrorFields {
  /** HTTP status; 0 when no HTTP answer came (network, timeout, abort, the socket). */
  status?: number;
  code?: string;
  /** The server's `X-Request-Id` for this request, to match the error with the server's log. */
  requestId?: string | undefined;
  details?: unknown;
  cause?: unknown;
}

/**
 * Base of every error the SDK throws (as the OpenAI SDK's `OpenAIError`): `status`, the server's `code`,
 * and the `requestId`. `isInstance` works across copies of the package, unlike `instanceof`.
 */
export class LongrunError extends Error {
  static readonly errorName: string = "LongrunError";
  /** The error names of this class and its ancestors, for `isInstance` across package copies. */
  readonly [MARKER]: readonly string[];
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: unknown;

  constructor(message: string, fields: ErrorFields = {}) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    const names: string[] = [];
    for (let type = new.target as unknown; typeof type === "function"; type = Object.getPrototypeOf(type)) {
      const name = (type as { errorName?: string }).errorName;
      if (Object.hasOwn(type as object, "errorName") && name) names.push(name);
    }
    this[MARKER] = names;
    this.name = names[0] ?? "LongrunError";
    this.status = fields.status ?? 0;
    this.code = fields.code ?? "internal";
    this.requestId = fields.requestId;
    this.details = fields.details;
  }

  /** True for an error of this class (or a subclass), even one created by another copy of this package. */
  static isInstance<T>(this: { errorName: string; prototype: T }, value: unknown): value is T {
    if (typeof value !== "object" || value === null) return false;
    const names = (value as Record<symbol, unknown>)[MARKER];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class it is called on (NotFoundError.isInstance), not always the base.
    return Array.isArray(names) && names.includes(this.errorName);
  }
}

/** 400: the request is malformed or asks for something the server refuses. */
export class BadRequestError extends LongrunError {
  static override readonly errorName: string = "BadRequestError";
}
/** 401: the token is missing, unknown or revoked. */
export class AuthenticationError extends LongrunError {
  static override readonly errorName: string = "AuthenticationError";
}
/** 403: the token may not do this (another tenant's thread, an admin-only route). */
export class PermissionDeniedError extends LongrunError {
  static override readonly errorName: string = "PermissionDeniedError";
}
/** 404: no such thread, run, agent… in your tenant. */
export class NotFoundError extends LongrunError {
  static override readonly errorName: string = "NotFoundError";
}
/** 409: the state does not allow it now (a decided approval, a busy agent). */
export class ConflictError extends LongrunError {
  static override readonly errorName: string = "ConflictError";
}
/** 429: slow down; `retryAfter` (seconds) is the server's `Retry-After`, when it sent one. */
export class RateLimitError extends LongrunError {
  static override readonly errorName: string = "RateLimitError";
  readonly retryAfter: number | undefined;
  constructor(message: string, fields: ErrorFields & { retryAfter?: number | undefined } = {}) {
    super(message, fields);
    this.retryAfter = fields.retryAfter;
  }
}
/** The conversation cannot fit the model's window any more (code `context_exhausted`): start a new thread. */
export class ContextExhaustedError extends LongrunError {
  static override readonly errorName: string = "ContextExhaustedError";
}
/** 5xx: the server failed or is unavailable. */
export class InternalServerError extends LongrunError {
  static override readonly errorName: string = "InternalServerError";
}
/** No HTTP answer: the connection was refused or dropped. */
export class ConnectionError extends LongrunError {
  static override readonly errorName: string = "ConnectionError";
}
/** No answer within `timeout` (a kind of ConnectionError, as in the OpenAI SDK). */
export class TimeoutError extends ConnectionError {
  static override readonly errorName: string = "TimeoutError";
}
/** The caller's `AbortSignal` ended the call. */
export class AbortError extends LongrunError {
  static override readonly errorName: string = "AbortError";
}

/** The error class for an HTTP answer: by code where the code is more specific than the status. */
export function errorForStatus(
  status: number,
  message: string,
  fields: ErrorFields & { retryAfter?: number | undefined },
): LongrunError {
  const all = { ...fields, status };
  if (fields.code === "context_exhausted") return new ContextExhaustedError(message, all);
  if (status === 400) return new BadRequestError(message, all);
  if (status === 401) return new AuthenticationError(message, all);
  if (status === 403) return new PermissionDeniedError(message, all);
  if (status === 404) return new NotFoundError(message, all);
  if (status === 409) return new ConflictError(message, all);
  if (status === 429) return new RateLimitError(message, all);
  if (status >= 500) return new InternalServerError(message, all);
  return new LongrunError(message, all);
}

const STATUS_OF_CODE: Record<string, number> = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  rate_limited: 429,
  too_many_runs: 429,
  internal: 500,
  unavailable: 503,
};

/** The error class for a code the socket sent (an `error` frame): the status is the one the code stands for. */
export function errorForCode(code: string, message: string): LongrunError {
  const status = STATUS_OF_CODE[code];
  return status === undefined
    ? new LongrunError(message, { code })
    : errorForStatus(status, message, { code });
}
