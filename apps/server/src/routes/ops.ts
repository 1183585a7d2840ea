import { createRoute } from "@hono/zod-openapi";
import { OpsView } from "@longrun/protocol";
import { AUTH_ERRORS, BEARER, createRouter, errors, jsonResponse } from "../contract.ts";
import type { FailureLog } from "../failure-log.ts";
import type { ServerDeps } from "../server-deps.ts";

const getOps = createRoute({
  method: "get",
  path: "/",
  operationId: "getOps",
  summary: "Workers and queues of the shared pool; the tenant's own breakers and recent failures",
  tags: ["ops"],
  security: BEARER,
  responses: {
    200: jsonResponse("The operations view", OpsView),
    ...errors({ ...AUTH_ERRORS, 503: "the queue backend is unreachable" }),
  },
});

/** GET /v1/ops, scoped to the caller's tenant (see OpsView for what is shared and why). */
export function opsRoutes(deps: ServerDeps, failures: FailureLog) {
  const app = createRouter();
  app.openapi(getOps, async (context) => {
    const tenantId = context.get("tenantId");
    const ops = await deps.ops(tenantId);
    const view: OpsView = { mode: deps.mode, ...ops, failures: failures.list(tenantId) };
    return context.json(view, 200);
  });
  return app;
}
