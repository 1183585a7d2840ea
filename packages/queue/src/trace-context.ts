import type { TraceCarrier } from "@longrun/protocol";
import { type Context, context, propagation } from "@opentelemetry/api";

/**
 * The active trace context as a W3C carrier, to put in a job's payload or a bus message; undefined when
 * tracing is off (the API's no-op propagator writes nothing), so payloads stay as they were.
 */
export function activeTraceCarrier(): { trace: TraceCarrier } | Record<string, never> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const { traceparent, tracestate } = carrier;
  if (!traceparent) return {};
  return { trace: { traceparent, ...(tracestate ? { tracestate } : {}) } };
}

/** The context a job or message continues: its sender's trace when it carries one, else the active one. */
export function traceContextOf(carrier: TraceCarrier | undefined): Context {
  const active = context.active();
  return carrier ? propagation.extract(active, carrier) : active;
}
