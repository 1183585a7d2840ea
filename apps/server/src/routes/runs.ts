import { createRoute } from "@hono/zod-openapi";
import { Id, LongrunError, RunResult } from "@longrun/protocol";
import { z } from "zod";
import { AUTH_ERRORS, BEARER, createRouter, errors, jsonResponse } from "../contract.ts";
import type { ServerDeps } from "../server-deps.ts";

const getRun = createRoute({
  method: "get",
  path: "/{id}",
  operationId: "getRun",
  summary: "Get a run: its status, error and timestamps",
  tags: ["runs"],
  security: BEARER,
  request: { params: z.object({ id: Id }) },
  responses: {
    200: jsonResponse("The run", RunResult),
    ...errors({ ...AUTH_ERRORS, 400: "the id is malformed", 404: "no such run in your tenant" }),
  },
});

const cancelRun = createRoute({
  method: "post",
  path: "/{id}/cancel",
  operationId: "cancelRun",
  summary: "Cancel a run from any server instance (a finished run is returned as it is)",
  tags: ["runs"],
  security: BEARER,
  request: { params: z.object({ id: Id }) },
  responses: {
    200: jsonResponse("The run, cancelled", RunResult),
    ...errors({ ...AUTH_ERRORS, 400: "the id is malformed", 404: "no such run in your tenant" }),
  },
});

/** The run if it belongs to the tenant; the message names the run asked for, never another tenant's thread. */
async function tenantRun(deps: ServerDeps, id: string, tenantId: string) {
  const existing = await deps.store.runs.get(id);
  const thread = existing ? await deps.store.threads.get(existing.threadId) : null;
  if (!existing || thread?.tenantId !== tenantId) throw new LongrunError("not_found", `run ${id} not found`);
  return existing;
}

/** GET /v1/runs/:id, and POST /v1/runs/:id/cancel — which works from any server instance through the control channel. */
export function runRoutes(deps: ServerDeps) {
  const app = createRouter();
  app.openapi(getRun, async (context) => {
    const { id } = context.req.valid("param");
    return context.json({ run: await tenantRun(deps, id, context.get("tenantId")) }, 200);
  });
  app.openapi(cancelRun, async (context) => {
    const { id } = context.req.valid("param");
    await tenantRun(deps, id, context.get("tenantId"));
    const run = await deps.runControl.cancel(id);
    await deps.publishCancel(id);
    return context.json({ run }, 200);
  });
  return app;
}
