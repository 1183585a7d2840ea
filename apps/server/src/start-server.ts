import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { createApp } from "./app.ts";
import { createFailureLog } from "./failure-log.ts";
import type { ServerDeps } from "./server-deps.ts";
import { createSocketDeps } from "./socket/socket-deps.ts";
import { attachSocketServer } from "./socket/ws-adapter.ts";

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the HTTP API, the gateway and the WebSocket server on one port. */
export async function startServer(
  deps: ServerDeps,
  options: { port: number; host?: string },
): Promise<RunningServer> {
  const failures = createFailureLog();
  const stopObserving = deps.live.subscribe((event) => {
    // Transient deltas (seq 0) are not counted; every event arrives parsed, with its tenant.
    if (event.seq === 0) return;
    // Counters count this process's own events (fed by its event sink); the bus only feeds shared gauges.
    deps.metrics.observeShared(event);
    const { tenantId } = event;
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
  const gateway = attachSocketServer(server, createSocketDeps(deps), {});
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
