import {
  type Attributes,
  type Context,
  context,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";

/**
 * The runtime's tracer. Until a process installs an SDK (the CLI does when OTEL_EXPORTER_OTLP_ENDPOINT is
 * set) this is the API's no-op tracer: spans cost a function call and record nothing.
 */
export const tracer = trace.getTracer("longrun-runtime");

/** Options of one span: its kind, first attributes, and the parent context (default: the active one). */
export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  parent?: Context;
}

/**
 * Runs `work` inside a new active span (its children and the jobs it enqueues join it), and ends it
 * however `work` ends: an exception is recorded and sets the status to error before it is rethrown.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = tracer.startSpan(
    name,
    {
      ...(options.kind !== undefined ? { kind: options.kind } : {}),
      ...(options.attributes ? { attributes: options.attributes } : {}),
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Records `error` on `span` and sets its status to error. */
export function markFailed(span: Span, error: unknown): void {
  if (error instanceof Error) span.recordException(error);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: error instanceof Error ? error.message : String(error),
  });
}

/** The ids longrun binds to its spans (and its log lines), as span attributes. */
export function idAttributes(ids: {
  threadId?: string;
  agentId?: string;
  runId?: string;
  tenantId?: string | undefined;
}): Attributes {
  return {
    ...(ids.threadId ? { "longrun.thread.id": ids.threadId, "gen_ai.conversation.id": ids.threadId } : {}),
    ...(ids.agentId ? { "longrun.agent.id": ids.agentId, "gen_ai.agent.id": ids.agentId } : {}),
    ...(ids.runId ? { "longrun.run.id": ids.runId } : {}),
    ...(ids.tenantId ? { "longrun.tenant.id": ids.tenantId } : {}),
  };
}
