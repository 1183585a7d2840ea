import { errorFields, type Logger } from "@longrun/protocol";
import { trace } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";

/**
 * One line per answered request, with its `X-Request-Id`, tenant, status and duration: debug for
 * answers, error (with the error) for a 5xx, so an operator can match a client's report to the log.
 */
export function requestLog(logger: () => Logger): MiddlewareHandler {
  // Resolved on the first request: building the route table touches no dependency.
  let log: Logger | undefined;
  return async (context, next) => {
    log ??= logger().child({ component: "http" });
    const startedAt = performance.now();
    await next();
    const status = context.res.status;
    const traceId = trace.getActiveSpan()?.spanContext().traceId;
    const fields = {
      requestId: context.get("requestId") as string | undefined,
      ...(traceId ? { traceId } : {}),
      tenantId: context.get("tenantId") as string | undefined,
      method: context.req.method,
      path: context.req.path,
      status,
      durationMs: Math.round(performance.now() - startedAt),
    };
    if (status >= 500) log.error({ ...fields, ...errorFields(context.error) }, "request failed");
    else log.debug(fields, "request answered");
  };
}
