import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { serveStatic } from "@hono/node-server/serve-static";
import { LongrunError } from "@longrun/protocol";
import { createRequestRate, createTarpit, DEFAULT_TENANT_LIMITS, limitsOf } from "@longrun/runtime";
import { requestId } from "hono/request-id";
import { anthropicGatewayRoutes } from "./anthropic-gateway/index.ts";
import { isMessagesPath, messagesErrorResponse } from "./anthropic-gateway/messages-error.ts";
import { bearerAuth } from "./auth.ts";
import { limitBody, readUnreadBody } from "./body-limit.ts";
import { createRouter, registerSecuritySchemes } from "./contract.ts";
import type { FailureLog } from "./failure-log.ts";
import { gatewayTurnOptions } from "./gateway-turn-options.ts";
import { errorResponse } from "./http-error.ts";
import { httpSpan } from "./http-span.ts";
import { openAiGatewayRoutes } from "./openai-gateway/index.ts";
import { registerDocumentRoute, registerWebSocketRoute } from "./openapi-document.ts";
import { requestLog } from "./request-log.ts";
import { agentRoutes } from "./routes/agents.ts";
import { approvalRuleRoutes } from "./routes/approval-rules.ts";
import { approvalRoutes } from "./routes/approvals.ts";
import { modelRoutes } from "./routes/models.ts";
import { opsRoutes } from "./routes/ops.ts";
import { runRoutes } from "./routes/runs.ts";
import { systemRoutes } from "./routes/system.ts";
import { threadForkRoutes } from "./routes/thread-fork.ts";
import { threadRoutes } from "./routes/threads.ts";
import { tokenRoutes } from "./routes/tokens.ts";
import type { ServerDeps } from "./server-deps.ts";
import { createTokenCache } from "./token-cache.ts";

const DEFAULT_BODY_LIMIT = 2 * 1024 * 1024;
/**
 * A gateway client resends its whole history on every request, so its bodies are larger than the
 * API's; but every byte is parsed, matched and counted on the event loop (an 8 MiB body held the
 * server 12 s at a 64 MiB limit, 30 MiB over a minute). 4 MiB is about a million tokens of text,
 * more than any window it could be projected into.
 */
const GATEWAY_BODY_LIMIT = 4 * 1024 * 1024;
const GATEWAY_PATHS = new Set([
  "/v1/chat/completions",
  "/v1/responses",
  // Codex sends its whole history to be compacted, as it does to /v1/responses.
  "/v1/responses/compact",
  "/v1/messages",
  "/v1/messages/count_tokens",
]);

/**
 * The hono app: REST API under /v1, health, metrics, the OpenAPI document, and the dashboard at `/`.
 * Every API route is declared with its schemas (see contract.ts), so the document lists exactly these.
 */
export function createApp(deps: ServerDeps, failures: FailureLog) {
  const app = createRouter();
  registerSecuritySchemes(app);
  // Every answer names its request (`X-Request-Id`), so a client's error can be matched to the server's log.
  app.use("*", requestId());
  // The request's span (when tracing is on) is in force for everything below, its log line included.
  app.use("*", httpSpan());
  app.use(
    "*",
    requestLog(() => deps.runtime.log),
  );
  // Before every route: a body left unread by its answer is read, so its connection stays usable.
  app.use("*", readUnreadBody(4 * DEFAULT_BODY_LIMIT));
  // Anthropic clients read errors in Anthropic's shape, a refused token included.
  app.onError((error, context) =>
    isMessagesPath(context.req.path) ? messagesErrorResponse(error, context) : errorResponse(error, context),
  );
  app.notFound((context) =>
    errorResponse(
      new LongrunError("not_found", `no route ${context.req.method} ${context.req.path}`),
      context,
    ),
  );

  // Public: registered before the /v1 middleware, so they answer without a token.
  app.route("/", systemRoutes(deps));
  registerDocumentRoute(app);

  const apiLimit = limitBody(deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT);
  // OpenAI-compatible clients resend their whole history on every request: a long session's body is
  // far larger than anything the longrun API takes.
  const gatewayLimit = limitBody(GATEWAY_BODY_LIMIT);
  app.use("/v1/*", (context, next) =>
    GATEWAY_PATHS.has(context.req.path) ? gatewayLimit(context, next) : apiLimit(context, next),
  );
  // Each tenant's request rate: past its burst, a 429 rate_limited with Retry-After (fair share),
  // decided right after the token's lookup and, for a token seen in the last half second, from memory.
  // Its refusals are held up to a second first (the tarpit), at most 64 of a tenant at once.
  const tenantLimits = (tenantId: string) =>
    limitsOf(deps.runtime.tenantLimits ?? { defaults: DEFAULT_TENANT_LIMITS, overrides: {} }, tenantId);
  const requestRate = createRequestRate(tenantLimits);
  const tokens = createTokenCache((token) => deps.store.apiKeys.verify(token));
  app.use("/v1/*", bearerAuth(tokens, requestRate, createTarpit(tenantLimits)));
  app.route("/v1/threads", threadRoutes(deps));
  app.route("/v1/threads", threadForkRoutes(deps));
  app.route("/v1/agents", agentRoutes(deps));
  app.route("/v1/runs", runRoutes(deps));
  app.route("/v1/approvals", approvalRoutes(deps));
  app.route("/v1/approval-rules", approvalRuleRoutes(deps));
  app.route("/v1/models", modelRoutes(deps));
  // POST /v1/chat/completions, /v1/responses and /v1/messages (Anthropic); GET /v1/models is the route above.
  const gatewayOptions = gatewayTurnOptions(deps);
  app.route("/v1", openAiGatewayRoutes(deps, gatewayOptions));
  app.route("/v1", anthropicGatewayRoutes(deps, gatewayOptions));
  app.route("/v1/ops", opsRoutes(deps, failures));
  app.route("/v1/tokens", tokenRoutes(deps));
  registerWebSocketRoute(app);

  // Unknown API paths are JSON 404s, not the dashboard's index.html served by the catch-all below.
  app.all("/v1/*", (context) =>
    errorResponse(
      new LongrunError("not_found", `no route ${context.req.method} ${context.req.path}`),
      context,
    ),
  );

  // The dashboard is a static site, not part of the API: it is outside /v1 and the document.
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
