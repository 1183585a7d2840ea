const MARKER = Symbol.for("longrun.gateway-error");

/** What a gateway failure tells the client: an HTTP status and an OpenAI-style error code. */
export type ClientTurnErrorCode =
  | "context_exhausted"
  | "conversation_busy"
  | "compaction_unavailable"
  | "upstream_error"
  | "bad_request";

/** A gateway failure as data: the status and code the client gets, and when to retry if it may. */
export class ClientTurnError extends Error {
  readonly [MARKER] = true;
  constructor(
    readonly status: number,
    readonly code: ClientTurnErrorCode,
    message: string,
    readonly options: { retryAfterMs?: number; upstreamCode?: string | null; upstreamType?: string } = {},
  ) {
    super(message);
    this.name = "ClientTurnError";
  }

  /** True for any ClientTurnError, even one made by another copy of this package. */
  static isInstance(value: unknown): value is ClientTurnError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
