import { createRoute } from "@hono/zod-openapi";
import { ModelList } from "@longrun/protocol";
import { AUTH_ERRORS, BEARER, createRouter, errors, jsonResponse } from "../contract.ts";
import type { ServerDeps } from "../server-deps.ts";

const listModels = createRoute({
  method: "get",
  path: "/",
  operationId: "listModels",
  summary: "Models a thread may use, in the OpenAI list shape with longrun's fields (window, sim scripts)",
  tags: ["models"],
  security: BEARER,
  responses: {
    200: jsonResponse("The models", ModelList),
    ...errors(AUTH_ERRORS),
  },
});

/** GET /v1/models: what `POST /v1/threads` accepts as `model` (and, for the sim, as `simScript`). */
export function modelRoutes(deps: ServerDeps) {
  const app = createRouter();
  app.openapi(listModels, async (context) =>
    context.json({ object: "list" as const, data: await deps.models.list() }, 200),
  );
  return app;
}
