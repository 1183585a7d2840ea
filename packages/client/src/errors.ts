const MARKER = Symbol.for("longrun.client.api-error");

/** An error answered by the server (or the socket): HTTP status (0 over the socket), code, message. */
export class LongrunApiError extends Error {
  readonly [MARKER] = true;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "LongrunApiError";
  }

  /** True for any LongrunApiError, even one created by another copy of this package. */
  static isInstance(value: unknown): value is LongrunApiError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
