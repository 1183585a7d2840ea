import { ErrorCode } from "./rest.ts";

const MARKER = Symbol.for("longrun.error");

/**
 * An error that is data: a literal code, a message, and a marker that survives package boundaries.
 * `retryAfterMs` (a refusal for load: 429, 503) becomes the answer's `Retry-After`.
 */
export class LongrunError extends Error {
  readonly [MARKER] = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = "LongrunError";
  }

  /** True for any LongrunError, even one created by another copy of this package. */
  static isInstance(value: unknown): value is LongrunError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** HTTP status for an error code. */
export function statusOf(code: ErrorCode): 400 | 401 | 403 | 404 | 409 | 413 | 415 | 426 | 429 | 500 | 503 {
  switch (code) {
    case "bad_request":
      return 400;
    case "unauthorized":
      return 401;
    case "forbidden":
      return 403;
    case "not_found":
      return 404;
    case "conflict":
      return 409;
    case "payload_too_large":
      return 413;
    case "unsupported_media_type":
      return 415;
    case "upgrade_required":
      return 426;
    case "rate_limited":
    case "too_many_runs":
      return 429;
    case "internal":
      return 500;
    case "unavailable":
    case "storage_unavailable":
      return 503;
    default: {
      const exhaustive: never = code;
      return exhaustive;
    }
  }
}

/** The error code an HTTP status stands for (undefined: a status no code has). */
export function codeOfStatus(status: number): ErrorCode | undefined {
  // The first code of a status is its general one (503: `unavailable`, not `storage_unavailable`).
  return ErrorCode.options.find((code) => statusOf(code) === status);
}
