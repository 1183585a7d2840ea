import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { LongrunError, type OpsView } from "@longrun/protocol";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { type AuthEnv, bearerAuth } from "./auth.ts";
import { errorResponse } from "./http-error.ts";
import { openAiGatewayRoutes } from "./openai-gateway/index.ts";
import { openApiDocument } from "./openapi.ts";
import { agentRoutes, approvalRoutes, runRoutes } from "./routes/agents.ts";
import { threadRoutes } from "./routes/threads.ts";
import type { ServerDeps } from "./server-deps.ts";

/** Recent failures shown on the operations view, newest first. */
export interface FailureLog {
  record(entry: OpsView["failures"][number]): void;
  list(): OpsView["failures"];
}

/** The hono app: REST API under /v1, health, metrics, OpenAPI, and the dashboard at `/`. */
export function createApp(deps: ServerDeps, failures: FailureLog) {
  const app = new Hono<AuthEnv>();
  app.onError((error, context) => errorResponse(error, context));
  app.notFound((context) =>
    context.json(
      { error: { code: "not_found", message: `no route ${context.req.method} ${context.req.path}` } },
      404,
    ),
  );

  app.get("/healthz", (context) => context.json({ ok: true }));
  app.get("/readyz", async (context) => {
    const readiness = await deps.ready();
    return context.json(readiness, readiness.ok ? 200 : 503);
  });
  app.get("/metrics", async (context) => {
    const ops = await deps.ops().catch(() => null);
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
  app.get("/v1/openapi.json", (context) => context.json(openApiDocument() as object));

  const limit = deps.bodyLimitBytes ?? 2 * 1024 * 1024;
  app.use(
    "/v1/*",
    bodyLimit({
      maxSize: limit,
      onError: (context) => {
        // The rest of the body is never read: close the connection, or the client's next request on
        // this keep-alive socket fails.
        context.header("connection", "close");
        return errorResponse(
          new LongrunError("payload_too_large", `request body over ${limit} bytes`),
          context,
        );
      },
    }),
  );
  app.use("/v1/*", bearerAuth(deps.store));
  app.route("/v1/threads", threadRoutes(deps));
  app.route("/v1/agents", agentRoutes(deps));
  app.route("/v1/approvals", approvalRoutes(deps));
  app.route("/v1/runs", runRoutes(deps));
  app.route("/v1", openAiGatewayRoutes(deps));
  app.get("/v1/ops", async (context) => {
    const ops = await deps.ops(context.get("tenantId"));
    const view: OpsView = { mode: deps.mode, ...ops, failures: failures.list() };
    return context.json(view);
  });

  // Unknown API paths are JSON 404s, not the dashboard's index.html served by the catch-all below.
  app.all("/v1/*", (context) =>
    context.json(
      { error: { code: "not_found", message: `no route ${context.req.method} ${context.req.path}` } },
      404,
    ),
  );

  const dashboard = deps.dashboardDir;
  if (dashboard && existsSync(join(dashboard, "index.html"))) {
    const root = relative(process.cwd(), dashboard) || ".";
    app.use("/assets/*", serveStatic({ root }));
    app.get("/favicon.svg", serveStatic({ root }));
    app.get("*", async (context) => context.html(await readFile(join(dashboard, "index.html"), "utf8")));
  } else {
    app.get("/", (context) =>
      context.text(
        "longrun API is running. The dashboard is not built: run `npm run build -w @longrun/dashboard`.",
      ),
    );
  }
  return app;
}

/** A bounded in-memory failure log fed from run.failed and compaction.failed events. */
export function createFailureLog(size = 50): FailureLog {
  const entries: OpsView["failures"] = [];
  return {
    record(entry) {
      entries.unshift(entry);
      entries.length = Math.min(entries.length, size);
    },
    list: () => [...entries],
  };
}
