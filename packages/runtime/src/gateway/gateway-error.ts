const MARKER = Symbol.for("longrun.gateway-error");

/** What a gateway failure tells the client: an HTTP status and an OpenAI-style error code. */
export type GatewayErrorCode =
  | "context_exhausted"
  | "conversation_busy"
  | "compaction_unavailable"
  | "upstream_error"
  | "bad_request";

/** A gateway failure as data: the status and code the client gets, and when to retry if it may. */
export class GatewayError extends Error {
  readonly [MARKER] = true;
  constructor(
    readonly status: number,
    readonly code: GatewayErrorCode,
    message: string,
    readonly options: { retryAfterMs?: number; upstreamCode?: string | null; upstreamType?: string } = {},
  ) {
    super(message);
    this.name = "GatewayError";
  }

  /** True for any GatewayError, even one made by another copy of this package. */
  static isInstance(value: unknown): value is GatewayError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
