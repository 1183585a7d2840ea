import { createRoute } from "@hono/zod-openapi";
import { Id, LongrunError, RunResult } from "@longrun/protocol";
import { z } from "zod";
import { AUTH_ERRORS, BEARER, createRouter, errors, jsonResponse } from "../contract.ts";
import type { ServerDeps } from "../server-deps.ts";

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

/** POST /v1/runs/:id/cancel — works from any server instance through the control channel. */
export function runRoutes(deps: ServerDeps) {
  const app = createRouter();
  app.openapi(cancelRun, async (context) => {
    const { id } = context.req.valid("param");
    const existing = await deps.store.runs.get(id);
    const thread = existing ? await deps.store.threads.get(existing.threadId) : null;
    // The message names the run asked for, never the thread of another tenant it belongs to.
    if (!existing || thread?.tenantId !== context.get("tenantId"))
      throw new LongrunError("not_found", `run ${id} not found`);
    const run = await deps.runControl.cancel(id);
    await deps.publishCancel(id);
    return context.json({ run }, 200);
  });
  return app;
}
