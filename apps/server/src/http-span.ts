import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";

const tracer = trace.getTracer("longrun-server");

/** Reads W3C trace headers from a fetch `Headers`. */
const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/**
 * One server span per API request (`POST /v1/threads/:id/messages`), continuing the caller's trace when
 * it sent a `traceparent`: the runs it admits and their jobs on any worker join it. Health, readiness
 * and metrics probes are not traced. With tracing off the API's no-op tracer makes this a pass-through.
 */
export function httpSpan(): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.path.startsWith("/v1/")) return next();
    const parent = propagation.extract(context.active(), c.req.raw.headers, headerGetter);
    const span = tracer.startSpan(
      c.req.method,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": c.req.method, "url.path": c.req.path },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const status = c.res.status;
      span.updateName(`${c.req.method} ${c.req.routePath}`);
      span.setAttributes({
        "http.route": c.req.routePath,
        "http.response.status_code": status,
        ...(c.get("requestId") ? { "longrun.request.id": c.get("requestId") as string } : {}),
        ...(c.get("tenantId") ? { "longrun.tenant.id": c.get("tenantId") as string } : {}),
      });
      if (status >= 500 || c.error) {
        if (c.error instanceof Error) span.recordException(c.error);
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: `HTTP ${status}` });
      }
      span.end();
    }
  };
}
