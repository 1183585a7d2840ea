import { invalidRequest, SIM_ERROR_CODES, type SimError } from "./errors.ts";

/**
 * An injectable fault. From server config (`faults`) or per request via headers:
 * `x-sim-fault: status=500`, `status=429;times=2;retry-after-ms=5`, `overflow`, `summary-fail=3`,
 * optionally `key=<name>` to keep separate counters; `x-sim-delay-ms: 50`.
 */
export interface SimFaultSpec {
  /** Answer with this HTTP status (500, 429, 503, ...). */
  status?: number;
  /** Fire the status/overflow fault only this many times (per counter key), then pass. */
  times?: number;
  /** Sent as `retry-after-ms` and `retry-after` headers with a status fault. */
  retryAfterMs?: number;
  /** Reject as over the context window, whatever the size. */
  overflow?: boolean;
  /** Fail this many summarization requests (HTTP 500), then succeed. */
  summaryFail?: number;
  /** Delay before answering, in milliseconds. */
  delayMs?: number;
  /** Counter key; defaults to the header text (or "config" for server config). */
  key?: string;
}

/** Parse the `x-sim-fault` header (and `x-sim-delay-ms`) into a fault spec, or an error. */
export function parseFaultHeaders(
  fault: string | undefined,
  delay: string | undefined,
): SimFaultSpec | SimError {
  const spec: SimFaultSpec = {};
  const bad = (what: string) =>
    invalidRequest(SIM_ERROR_CODES.invalidRequest, `Invalid x-sim-fault: ${what}`);
  for (const raw of (fault ?? "").split(";")) {
    const part = raw.trim();
    if (!part) continue;
    const [key = "", value = ""] = part.split("=", 2).map((piece) => piece.trim());
    const number = Number(value);
    const numeric = value !== "" && Number.isInteger(number) && number >= 0;
    if (key === "overflow") spec.overflow = true;
    else if (key === "status" && numeric && number >= 400) spec.status = number;
    else if (key === "times" && numeric) spec.times = number;
    else if (key === "retry-after-ms" && numeric) spec.retryAfterMs = number;
    else if (key === "summary-fail" && numeric) spec.summaryFail = number;
    else if (key === "delay-ms" && numeric) spec.delayMs = number;
    else if (key === "key" && value) spec.key = value;
    else return bad(part);
  }
  if (delay !== undefined) {
    const ms = Number(delay);
    if (!Number.isInteger(ms) || ms < 0) return bad(`x-sim-delay-ms ${delay}`);
    spec.delayMs = ms;
  }
  if (fault) spec.key ??= fault.trim();
  return spec;
}

function statusError(status: number, retryAfterMs: number | undefined): SimError {
  const headers: Record<string, string> | undefined =
    retryAfterMs === undefined
      ? undefined
      : { "retry-after-ms": String(retryAfterMs), "retry-after": String(Math.ceil(retryAfterMs / 1000)) };
  if (status === 429) {
    return {
      name: "SimError",
      status,
      type: "rate_limit_error",
      code: SIM_ERROR_CODES.rateLimitExceeded,
      message: "Rate limit reached for requests (simulated). Please try again later.",
      param: null,
      headers,
    };
  }
  return {
    name: "SimError",
    status,
    type: "server_error",
    code: SIM_ERROR_CODES.serverError,
    message: "The server had an error while processing your request (simulated). Sorry about that!",
    param: null,
    headers,
  };
}

/** Fault counters: how often each keyed fault has fired (the only cross-request state besides caches). */
export class FaultCounters {
  private readonly fired = new Map<string, number>();

  private take(key: string, limit: number | undefined): boolean {
    const count = this.fired.get(key) ?? 0;
    if (limit !== undefined && count >= limit) return false;
    this.fired.set(key, count + 1);
    return true;
  }

  /** A status fault to answer with now, if the spec has one left. */
  statusFault(spec: SimFaultSpec, key: string): SimError | undefined {
    if (spec.status === undefined || !this.take(`status:${key}`, spec.times)) return undefined;
    return statusError(spec.status, spec.retryAfterMs);
  }

  /** True when a forced overflow should fire now. */
  overflowFault(spec: SimFaultSpec, key: string): boolean {
    return spec.overflow === true && this.take(`overflow:${key}`, spec.times);
  }

  /** A summary failure to answer with now (only for summarization requests). */
  summaryFault(spec: SimFaultSpec, key: string): SimError | undefined {
    if (!spec.summaryFail || !this.take(`summary:${key}`, spec.summaryFail)) return undefined;
    return { ...statusError(500, undefined), code: SIM_ERROR_CODES.summaryFailed };
  }

  /** Forget all counts. */
  reset(): void {
    this.fired.clear();
  }
}
