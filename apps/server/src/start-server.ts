import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { LongrunEvent } from "@longrun/protocol";
import { createApp } from "./app.ts";
import { createFailureLog } from "./failure-log.ts";
import { attachGateway } from "./gateway/index.ts";
import { createGatewayDeps } from "./gateway-deps.ts";
import type { ServerDeps } from "./server-deps.ts";

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the HTTP API and the WebSocket gateway on one port. */
export async function startServer(
  deps: ServerDeps,
  options: { port: number; host?: string },
): Promise<RunningServer> {
  const failures = createFailureLog();
  const stopObserving = deps.live.subscribe((raw) => {
    const parsed = LongrunEvent.safeParse(raw);
    if (!parsed.success || parsed.data.seq === 0) return;
    const event = parsed.data;
    deps.metrics.observe(event);
    // Published events carry their tenant beside the envelope (the schema strips it from `event`).
    const tenantId = String((raw as { tenantId?: unknown }).tenantId ?? "");
    if (event.type === "run.failed") {
      failures.record(tenantId, {
        at: event.at,
        threadId: event.threadId,
        agentId: event.agentId ?? null,
        kind: "run.failed",
        message: `${event.data.error.code}: ${event.data.error.message}`,
      });
    } else if (event.type === "compaction.failed") {
      failures.record(tenantId, {
        at: event.at,
        threadId: event.threadId,
        agentId: event.agentId ?? null,
        kind: "compaction.failed",
        message: event.data.reason,
      });
    }
  });
  const app = createApp(deps, failures);
  const host = options.host ?? "127.0.0.1";
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: app.fetch, port: options.port, hostname: host }, () =>
      resolve(started as Server),
    );
  });
  const gateway = attachGateway(server, createGatewayDeps(deps), {});
  const metricsTimer = setInterval(() => deps.metrics.wsClients.set(gateway.clients()), 5_000);
  metricsTimer.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}`,
    port,
    async close() {
      clearInterval(metricsTimer);
      stopObserving();
      await gateway.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
