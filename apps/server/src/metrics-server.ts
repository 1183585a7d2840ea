import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Store } from "@longrun/store";
import { Hono } from "hono";
import { errorResponse } from "./http-error.ts";
import type { Metrics } from "./metrics.ts";
import { metricsAuth } from "./metrics-auth.ts";

/**
 * A worker's own `GET /metrics` (LONGRUN_METRICS_PORT): its steps, model calls, queue waits and
 * compactions, behind the same credentials as the server's (LONGRUN_METRICS_TOKEN or an admin key).
 */
export async function startMetricsServer(options: {
  metrics: Metrics;
  store: Store;
  metricsToken?: string;
  port: number;
  host?: string;
}): Promise<{ url: string; close(): Promise<void> }> {
  const app = new Hono();
  app.onError((error, context) => errorResponse(error, context));
  app.use("/metrics", metricsAuth(options.store, options.metricsToken));
  app.get("/metrics", async (context) =>
    context.text(await options.metrics.registry.metrics(), 200, {
      "content-type": options.metrics.registry.contentType,
    }),
  );
  const host = options.host ?? "127.0.0.1";
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port, hostname: host }, () =>
      resolve(started as Server),
    );
  });
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
