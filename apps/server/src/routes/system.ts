import { createRoute } from "@hono/zod-openapi";
import { Health, Readiness } from "@longrun/protocol";
import { z } from "zod";
import { createRouter, errors, jsonResponse } from "../contract.ts";
import { metricsAuth } from "../metrics-auth.ts";
import type { ServerDeps } from "../server-deps.ts";

const tags = ["system"];

const health = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "getHealth",
  summary: "Liveness: the process answers",
  tags,
  security: [],
  responses: { 200: jsonResponse("Alive", Health), ...errors({}) },
});

const readiness = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "getReadiness",
  summary: "Readiness: the database and Redis are reachable",
  tags,
  security: [],
  responses: {
    200: jsonResponse("Every dependency answers", Readiness),
    503: jsonResponse("A dependency does not answer (`checks` says which)", Readiness),
    ...errors({}),
  },
});

const metrics = createRoute({
  method: "get",
  path: "/metrics",
  operationId: "getMetrics",
  summary:
    "Prometheus metrics of this process's own work (LONGRUN_METRICS_TOKEN or an admin token; no thread or agent labels)",
  tags,
  security: [{ bearer: [] }],
  responses: {
    200: {
      description: "Prometheus text exposition format",
      content: { "text/plain": { schema: z.string() } },
    },
    ...errors({
      401: "missing or invalid token",
      403: "a tenant's ordinary token: metrics count every tenant",
    }),
  },
});

/** Liveness and readiness, unauthenticated and free of any tenant's data; metrics, for the operator. */
export function systemRoutes(deps: ServerDeps) {
  const app = createRouter();
  app.use("/metrics", metricsAuth(deps.store, deps.metricsToken));
  app.openapi(health, (context) => context.json({ ok: true as const }, 200));
  app.openapi(readiness, async (context) => {
    const ready = await deps.ready();
    return ready.ok ? context.json(ready, 200) : context.json(ready, 503);
  });
  app.openapi(metrics, async (context) => {
    // No tenant: the queue figures of the shared pool, no breakers.
    const ops = await deps.ops("").catch(() => null);
    for (const queue of ops?.queues ?? []) {
      deps.metrics.queueDepth.set({ queue: queue.name, state: "waiting" }, queue.waiting);
      deps.metrics.queueDepth.set({ queue: queue.name, state: "active" }, queue.active);
      deps.metrics.queueDepth.set({ queue: queue.name, state: "delayed" }, queue.delayed);
      deps.metrics.queueWait.set({ queue: queue.name }, queue.oldestWaitMs / 1000);
    }
    return context.text(await deps.metrics.registry.metrics(), 200, {
      "content-type": deps.metrics.registry.contentType,
    });
  });
  return app;
}
