import {
  type Answer,
  type AnswerEvent,
  createAnswerReader,
  type UpstreamChunk,
} from "@longrun/openai-compat";

const MODEL_TIMEOUT = Symbol.for("longrun.runtime.modelTimeout");

/** How long a model call may take: to its first streamed byte (or its answer), and in all. */
export interface ModelTimeouts {
  firstByteMs: number;
  totalMs: number;
}

/**
 * A model call that went past one of its timeouts. Not retried inside the step: the step fails with
 * this reason and the job's retry policy decides (each failed attempt visible on the run).
 */
export class ModelTimeoutError extends Error {
  readonly [MODEL_TIMEOUT] = true;
  constructor(
    readonly limit: "first_byte" | "total",
    readonly timeoutMs: number,
  ) {
    super(
      limit === "first_byte"
        ? `model did not answer within ${timeoutMs} ms`
        : `model did not finish its answer within ${timeoutMs} ms`,
    );
    this.name = "ModelTimeoutError";
  }

  /** True for any ModelTimeoutError, even one from another copy of this package. */
  static isInstance(value: unknown): value is ModelTimeoutError {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[MODEL_TIMEOUT] === true
    );
  }
}

/** The timers of one model call: pass `signal` to the request, call `answered()` on the first byte. */
export interface ModelDeadline {
  signal: AbortSignal;
  answered(): void;
  /** The error to throw for what the call threw: a ModelTimeoutError when a timer aborted it. */
  explain(error: unknown): unknown;
  clear(): void;
}

/**
 * Starts the first-byte and total timers of a model call. Without them a model that accepts the
 * connection and never answers held its run "running" for as long as anyone watched, with no event.
 */
export function startModelDeadline(timeouts: ModelTimeouts | undefined, outer?: AbortSignal): ModelDeadline {
  const controller = new AbortController();
  let expired: ModelTimeoutError | null = null;
  const expire = (error: ModelTimeoutError) => {
    expired ??= error;
    controller.abort(error);
  };
  const firstByte = timeouts
    ? setTimeout(
        () => expire(new ModelTimeoutError("first_byte", timeouts.firstByteMs)),
        timeouts.firstByteMs,
      )
    : undefined;
  const total = timeouts
    ? setTimeout(() => expire(new ModelTimeoutError("total", timeouts.totalMs)), timeouts.totalMs)
    : undefined;
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  return {
    signal,
    answered: () => clearTimeout(firstByte),
    // The caller's own abort (a cancel, a lost lease) stays what it was: only our timers explain.
    explain: (error) => (expired && !outer?.aborted ? expired : error),
    clear: () => {
      clearTimeout(firstByte);
      clearTimeout(total);
    },
  };
}

/**
 * Runs one model call under its timers (`call` passes `deadline.signal` to the request and calls
 * `deadline.answered()` on its first byte): what it throws is explained (a ModelTimeoutError when a
 * timer aborted it), and the timers are cleared however it ends.
 */
export async function withModelDeadline<T>(
  timeouts: ModelTimeouts | undefined,
  outer: AbortSignal | undefined,
  call: (deadline: ModelDeadline) => Promise<T>,
): Promise<T> {
  const deadline = startModelDeadline(timeouts, outer);
  try {
    return await call(deadline);
  } catch (error) {
    throw deadline.explain(error);
  } finally {
    deadline.clear();
  }
}

/**
 * Reads a streamed answer to its end under a deadline (the reader the gateway streams answers
 * through: one way to turn chunks into the fact); each chunk's events reach `onEvent`.
 */
export async function readAnswerStream(
  stream: AsyncIterable<UpstreamChunk>,
  deadline: ModelDeadline,
  onEvent: (event: AnswerEvent) => void,
): Promise<Answer> {
  const reader = createAnswerReader();
  for await (const chunk of stream) {
    deadline.answered();
    for (const event of reader.push(chunk)) onEvent(event);
  }
  // The client's stream ends quietly when its signal aborts: a cut-off answer must not pass as whole.
  if (deadline.signal.aborted) throw deadline.signal.reason;
  return reader.finish();
}
