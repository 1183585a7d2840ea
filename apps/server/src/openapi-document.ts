import { createRoute, type OpenAPIHono } from "@hono/zod-openapi";
import { ClientFrame, LongrunError, ServerFrame } from "@longrun/protocol";
import { z } from "zod";
import type { AuthEnv } from "./auth.ts";
import { AUTH_ERRORS, BEARER, errors, jsonResponse } from "./contract.ts";

const WEBSOCKET_DESCRIPTION = `Upgrade to a WebSocket (token in \`Authorization: Bearer\` or \`?token=\`). Every frame is one JSON
text message. The client sends \`ClientFrame\`s (subscribe, unsubscribe, command, ack, ping); the server
sends \`ServerFrame\`s (event, ack, subscribed, error, resync, heartbeat, pong, closing). Both unions are in
\`components/schemas\` and named under \`x-websocket\`. A plain GET without the upgrade is answered 426.`;

const websocket = createRoute({
  method: "get",
  path: "/v1/ws",
  operationId: "openWebSocket",
  summary: "WebSocket gateway: subscribe to events, send commands",
  description: WEBSOCKET_DESCRIPTION,
  tags: ["websocket"],
  security: BEARER,
  responses: {
    101: { description: "Switching protocols: frames as `x-websocket` describes them" },
    ...errors({ ...AUTH_ERRORS, 426: "the request did not ask for a WebSocket upgrade" }),
  },
});

const documentRoute = createRoute({
  method: "get",
  path: "/v1/openapi.json",
  operationId: "getOpenApiDocument",
  summary: "This document",
  tags: ["system"],
  security: [],
  responses: {
    200: jsonResponse("The OpenAPI 3.1 document", z.record(z.string(), z.unknown())),
    ...errors({}),
  },
});

const TAGS = [
  { name: "threads", description: "Conversations, each with a workspace, an agent tree and an event log" },
  { name: "agents", description: "Facts, projections, compaction, teams and history of one agent" },
  { name: "approvals", description: "Decisions on parked tool calls, scoped by agent" },
  { name: "runs", description: "Units of requested work" },
  { name: "models", description: "Models a thread may use" },
  { name: "ops", description: "The operations view, scoped to the tenant" },
  { name: "websocket", description: "Live events and commands over one socket" },
  { name: "system", description: "Health, readiness, metrics and this document" },
];

/** The document of every route registered on `app`, plus the WebSocket frame schemas. */
export function buildOpenApiDocument(app: OpenAPIHono<AuthEnv>): Record<string, unknown> {
  const document = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "longrun API",
      version: "1.0.0",
      description:
        "Long-running tool-using agents inside a finite context window. Errors are `{error: {code, message}}`.",
    },
    // Relative: the document is right wherever the server is deployed (behind a proxy, on any port).
    servers: [{ url: "/", description: "This server" }],
    security: BEARER,
    tags: TAGS,
  }) as unknown as Record<string, unknown> & {
    paths: Record<string, Record<string, Record<string, unknown>>>;
  };
  const ws = document.paths["/v1/ws"]?.get;
  if (ws)
    ws["x-websocket"] = {
      clientFrames: { $ref: "#/components/schemas/ClientFrame" },
      serverFrames: { $ref: "#/components/schemas/ServerFrame" },
    };
  return document;
}

/** `GET /v1/openapi.json`, public; built once, on first request, from every route registered by then. */
export function registerDocumentRoute(root: OpenAPIHono<AuthEnv>): void {
  root.openAPIRegistry.registerComponent("schemas", "ClientFrame", frameSchema(ClientFrame, "input"));
  root.openAPIRegistry.registerComponent("schemas", "ServerFrame", frameSchema(ServerFrame, "output"));
  let cached: Record<string, unknown> | null = null;
  root.openapi(documentRoute, (context) => {
    cached ??= buildOpenApiDocument(root);
    return context.json(cached, 200);
  });
}

/** `GET /v1/ws` without an upgrade (the gateway takes upgrades before they reach hono). */
export function registerWebSocketRoute(root: OpenAPIHono<AuthEnv>): void {
  root.openapi(websocket, () => {
    throw new LongrunError("upgrade_required", "GET /v1/ws is a WebSocket endpoint: send an upgrade request");
  });
}

/** A frame union as JSON Schema, self-contained (an empty metadata registry: no `$defs` to resolve). */
function frameSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: "any",
    metadata: z.registry(),
  });
  return rest;
}
