import {
  ApprovalBody,
  CompactBody,
  ContextView,
  CreateThreadBody,
  ErrorBody,
  HistoryView,
  LongrunEvent,
  MessagesPage,
  OpsView,
  PostMessageBody,
  PostMessageResult,
  Run,
  SpawnBody,
  ThreadDetail,
  ThreadList,
} from "@longrun/protocol";
import { z } from "zod";

interface Route {
  method: "get" | "post";
  path: string;
  summary: string;
  body?: z.ZodType;
  response?: z.ZodType;
  status?: number;
  auth?: boolean;
}

const routes: Route[] = [
  {
    method: "post",
    path: "/v1/threads",
    summary: "Create a thread (and optionally post its first task)",
    body: CreateThreadBody,
    response: ThreadDetail,
    status: 201,
  },
  { method: "get", path: "/v1/threads", summary: "List the tenant's threads", response: ThreadList },
  {
    method: "get",
    path: "/v1/threads/{id}",
    summary: "A thread with its agent tree and runs",
    response: ThreadDetail,
  },
  {
    method: "post",
    path: "/v1/threads/{id}/messages",
    summary: "Post a user message; starts a run or queues it behind the active one",
    body: PostMessageBody,
    response: PostMessageResult,
    status: 202,
  },
  {
    method: "get",
    path: "/v1/threads/{id}/events",
    summary: "Events after ?since= (per-thread seq)",
    response: z.object({ events: z.array(LongrunEvent) }),
  },
  {
    method: "post",
    path: "/v1/runs/{id}/cancel",
    summary: "Cancel a run from any server instance",
    response: z.object({ run: Run }),
  },
  {
    method: "post",
    path: "/v1/approvals/{callId}",
    summary: "Approve or deny a parked tool call",
    body: ApprovalBody,
    response: z.object({ ok: z.literal(true) }),
  },
  {
    method: "post",
    path: "/v1/agents/{id}/compact",
    summary: "Manual compaction: its own turn, no continuation",
    body: CompactBody,
    response: z.object({ runId: z.string(), queued: z.boolean() }),
    status: 202,
  },
  {
    method: "get",
    path: "/v1/agents/{id}/messages",
    summary: "An agent's facts (?afterSeq=&limit=)",
    response: MessagesPage,
  },
  {
    method: "get",
    path: "/v1/agents/{id}/context",
    summary: "The projection the model would get now, with token figures",
    response: ContextView,
  },
  {
    method: "post",
    path: "/v1/agents/{id}/spawn",
    summary: "Spawn a team of sub-agents",
    body: SpawnBody,
    status: 201,
  },
  {
    method: "get",
    path: "/v1/agents/{id}/history",
    summary: "Compacted source messages offloaded to the history file",
    response: HistoryView,
  },
  {
    method: "get",
    path: "/v1/ops",
    summary: "Workers, queues, breakers, recent failures",
    response: OpsView,
  },
  { method: "get", path: "/healthz", summary: "Liveness", auth: false },
  { method: "get", path: "/readyz", summary: "Readiness: database and Redis reachable", auth: false },
  { method: "get", path: "/metrics", summary: "Prometheus metrics", auth: false },
];

function schema(type: z.ZodType): unknown {
  return z.toJSONSchema(type, { unrepresentable: "any", io: "input" });
}

/** The OpenAPI 3.1 document, generated from the same zod schemas the routes validate with. */
export function openApiDocument(): unknown {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => ({
      name: match[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const entry: Record<string, unknown> = {
      summary: route.summary,
      parameters,
      responses: {
        [String(route.status ?? 200)]: {
          description: "OK",
          ...(route.response ? { content: { "application/json": { schema: schema(route.response) } } } : {}),
        },
        default: { description: "Error", content: { "application/json": { schema: schema(ErrorBody) } } },
      },
      ...(route.auth === false ? { security: [] } : {}),
    };
    if (route.body)
      entry.requestBody = { required: true, content: { "application/json": { schema: schema(route.body) } } };
    paths[route.path] = { ...paths[route.path], [route.method]: entry };
  }
  paths["/v1/ws"] = {
    get: {
      summary: "WebSocket gateway (subscribe, commands); token in Authorization or ?token=",
      responses: { 101: { description: "Switching protocols" } },
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "longrun API", version: "1.0.0" },
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths,
  };
}
