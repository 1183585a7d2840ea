const UNRECOVERABLE = Symbol.for("longrun.queue.unrecoverable");

/** Thrown by a job handler (or the payload check) when retrying cannot help; the job fails at once. */
export class UnrecoverableJobError extends Error {
  readonly [UNRECOVERABLE] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UnrecoverableJobError";
  }

  /** True for any UnrecoverableJobError, even one from another copy of this package. */
  static isInstance(value: unknown): value is UnrecoverableJobError {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[UNRECOVERABLE] === true
    );
  }
}

/** An attempt that ran past its catalog `timeoutMs`; retried like any other failure. */
export class JobTimeoutError extends Error {
  constructor(
    readonly jobName: string,
    readonly timeoutMs: number,
  ) {
    super(`${jobName} timed out after ${timeoutMs} ms`);
    this.name = "JobTimeoutError";
  }
}

/** Message of an unknown thrown value. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
