import { createRoute } from "@hono/zod-openapi";
import { ApiKeyList, Id, LongrunError, RevokedApiKey } from "@longrun/protocol";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import type { AuthEnv } from "../auth.ts";
import { AUTH_ERRORS, BEARER, createRouter, errors, jsonResponse } from "../contract.ts";
import type { ServerDeps } from "../server-deps.ts";

const ADMIN_ERRORS = { ...AUTH_ERRORS, 403: "the token is not an admin token" } as const;

const listTokens = createRoute({
  method: "get",
  path: "/",
  operationId: "listTokens",
  summary: "Every tenant's bearer-token keys, revoked ones included (admin tokens only)",
  tags: ["tokens"],
  security: BEARER,
  responses: {
    200: jsonResponse(
      "The keys, oldest first; tokens themselves are never stored, only their last four characters",
      ApiKeyList,
    ),
    ...errors(ADMIN_ERRORS),
  },
});

const revokeToken = createRoute({
  method: "delete",
  path: "/{id}",
  operationId: "revokeToken",
  summary: "Revoke a key: its token is refused at once by every server (REST, WebSocket, gateway)",
  tags: ["tokens"],
  security: BEARER,
  request: { params: z.object({ id: Id }) },
  responses: {
    200: jsonResponse(
      "The key, revoked; open WebSockets with its token close within a second",
      RevokedApiKey,
    ),
    ...errors({
      ...ADMIN_ERRORS,
      400: "the id is malformed",
      404: "no such key",
      409: "the key was already revoked",
    }),
  },
});

/** Admin keys only (the operator's LONGRUN_TOKEN or generated token, or `longrun token create --admin`). */
const requireAdmin: MiddlewareHandler<AuthEnv> = async (context, next) => {
  if (!context.get("admin")) throw new LongrunError("forbidden", "this route needs an admin token");
  await next();
};

/** GET /v1/tokens and DELETE /v1/tokens/:id — the same as `longrun token list|revoke`. */
export function tokenRoutes(deps: ServerDeps) {
  const { store } = deps;
  const app = createRouter();
  app.use("*", requireAdmin);
  app.openapi(listTokens, async (context) => context.json({ tokens: await store.apiKeys.list() }, 200));
  app.openapi(revokeToken, async (context) => {
    const { id } = context.req.valid("param");
    const key = (await store.apiKeys.list()).find((candidate) => candidate.id === id);
    if (!key) throw new LongrunError("not_found", `key ${id} not found`);
    if (!(await store.apiKeys.revoke(id)))
      throw new LongrunError("conflict", `key ${id} was already revoked`);
    const revoked = (await store.apiKeys.list()).find((candidate) => candidate.id === id) ?? key;
    return context.json({ token: revoked }, 200);
  });
  return app;
}
