/** Fields of one log line: ids (tenantId, threadId, agentId, runId, jobId, requestId) and what happened. */
export type LogFields = Record<string, unknown>;

/**
 * The structured logger every process injects through its deps (pino in the composition; its shape is
 * all the packages rely on, so none of them imports a global logger). One JSON line per call.
 */
export interface Logger {
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
  /** A logger whose every line carries `bindings` (a job's, a request's ids). */
  child(bindings: LogFields): Logger;
}

/** A logger that writes nothing: the default of tests and embedders that pass none. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child: () => silentLogger,
};

/** An error as log fields under `error`: its name, message and code, not its stack (one line stays one line). */
export function errorFields(error: unknown): LogFields {
  if (!(error instanceof Error)) return { error: { message: String(error) } };
  const code = (error as { code?: unknown }).code;
  return {
    error: {
      name: error.name,
      message: error.message,
      ...(code !== undefined ? { code } : {}),
    },
  };
}
