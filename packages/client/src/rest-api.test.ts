import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient, type LongrunClient } from "./client.ts";
import { LongrunApiError } from "./errors.ts";

interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

const thread = {
  id: "thread-1",
  tenantId: "tenant-a",
  title: "t",
  workspaceDir: "/tmp/w",
  modelProfile: { model: "sim", maxInputTokens: 32_000 },
  status: "idle",
  createdAt: 1,
  updatedAt: 2,
};
const agent = {
  id: "agent-1",
  threadId: "thread-1",
  parentAgentId: null,
  name: "root",
  inherit: "fresh",
  forkMessageId: null,
  forkCompactionId: null,
  status: "idle",
  createdAt: 1,
};
const run = {
  id: "run-1",
  threadId: "thread-1",
  agentId: "agent-1",
  kind: "message",
  status: "cancelled",
  error: null,
  createdAt: 1,
  startedAt: null,
  finishedAt: 3,
};

/** Canned answers by "METHOD path"; the test server records every request it gets. */
const routes = new Map<string, { status: number; body: unknown }>();
const recorded: Recorded[] = [];
let server: Server;
let client: LongrunClient;

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    void readBody(request).then((body) => {
      recorded.push({
        method: request.method ?? "",
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: request.headers.authorization,
        contentType: request.headers["content-type"],
        body,
      });
      const route = routes.get(`${request.method} ${url.pathname}`);
      const answer = route ?? { status: 404, body: { error: { code: "not_found", message: "no route" } } };
      response.writeHead(answer.status, { "content-type": "application/json" });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  client = createClient({ baseUrl: `http://127.0.0.1:${port}/`, token: "secret" });
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  routes.clear();
  recorded.length = 0;
});

describe("REST client", () => {
  it("shapes requests: path, method, bearer token, JSON body, query", async () => {
    const detail = { ...thread, agents: [agent], runs: [run] };
    routes.set("POST /v1/threads", { status: 201, body: detail });
    routes.set("POST /v1/threads/thread-1/messages", {
      status: 202,
      body: { runId: "run-2", messageId: null, queued: true, position: 1 },
    });
    routes.set("GET /v1/threads/thread-1/events", {
      status: 200,
      body: {
        events: [{ threadId: "thread-1", seq: 4, type: "run.started", data: { kind: "message" }, at: 5 }],
        nextSince: null,
      },
    });
    routes.set("GET /v1/agents/agent%201/messages", {
      status: 200,
      body: { messages: [], nextAfterSeq: null },
    });

    await expect(client.threads.create({ title: "t", task: "go" })).resolves.toMatchObject({
      id: "thread-1",
    });
    await expect(client.threads.sendMessage("thread-1", { content: "hi" })).resolves.toEqual({
      runId: "run-2",
      messageId: null,
      queued: true,
      position: 1,
    });
    const events = await client.threads.events("thread-1", { since: 3, limit: 10 });
    expect(events.map((event) => event.seq)).toEqual([4]);
    await expect(client.agents.messages("agent 1", { afterSeq: 7 })).resolves.toEqual({
      messages: [],
      nextAfterSeq: null,
    });

    expect(recorded.map(({ method, path, query }) => ({ method, path, query }))).toEqual([
      { method: "POST", path: "/v1/threads", query: {} },
      { method: "POST", path: "/v1/threads/thread-1/messages", query: {} },
      { method: "GET", path: "/v1/threads/thread-1/events", query: { since: "3", limit: "10" } },
      { method: "GET", path: "/v1/agents/agent%201/messages", query: { afterSeq: "7" } },
    ]);
    expect(recorded.every((request) => request.authorization === "Bearer secret")).toBe(true);
    expect(recorded[0]).toMatchObject({ contentType: "application/json", body: { title: "t", task: "go" } });
    expect(recorded[2]?.contentType).toBeUndefined();
  });

  it("covers the remaining endpoints", async () => {
    routes.set("GET /v1/threads", { status: 200, body: { threads: [thread] } });
    routes.set("POST /v1/runs/run-1/cancel", { status: 200, body: { run } });
    routes.set("POST /v1/agents/agent-1/approvals/call-1", { status: 200, body: { ok: true } });
    routes.set("POST /v1/agents/agent-1/compact", { status: 202, body: { runId: "run-9", queued: false } });
    routes.set("POST /v1/agents/agent-1/spawn", {
      status: 201,
      body: { runId: "run-3", agents: [agent], queued: false },
    });
    routes.set("GET /v1/agents/agent-1/history", {
      status: 200,
      body: { agentId: "agent-1", file: null, messages: [], nextOffset: null },
    });
    routes.set("GET /v1/models", {
      status: 200,
      body: {
        object: "list",
        data: [
          {
            id: "sim",
            object: "model",
            created: 0,
            owned_by: "longrun",
            longrun: { maxInputTokens: 128_000, default: true, simScripts: ["explorer"] },
          },
        ],
      },
    });
    routes.set("GET /v1/ops", {
      status: 200,
      body: { mode: "embedded", workers: [], queues: [], breakers: [], failures: [] },
    });
    routes.set("GET /healthz", { status: 200, body: { ok: true } });

    expect((await client.threads.list()).map((item) => item.id)).toEqual(["thread-1"]);
    expect((await client.runs.cancel("run-1")).status).toBe("cancelled");
    await expect(
      client.approvals.resolve("agent-1", "call-1", { decision: "deny", reason: "no" }),
    ).resolves.toEqual({ ok: true });
    await expect(client.agents.compact("agent-1")).resolves.toEqual({ runId: "run-9", queued: false });
    const spawned = await client.agents.spawn("agent-1", {
      agents: [{ name: "a", brief: "b", inherit: "fork" }],
    });
    expect(spawned).toMatchObject({ runId: "run-3", agents: [{ id: "agent-1" }] });
    await expect(client.agents.history("agent-1", { offset: 2 })).resolves.toMatchObject({ file: null });
    expect((await client.models.list()).map((model) => model.id)).toEqual(["sim"]);
    await expect(client.ops.get()).resolves.toMatchObject({ mode: "embedded" });
    await expect(client.health()).resolves.toEqual({ ok: true });
    expect(recorded.find((request) => request.path === "/v1/agents/agent-1/approvals/call-1")?.body).toEqual({
      decision: "deny",
      reason: "no",
    });
    expect(recorded.find((request) => request.path === "/v1/agents/agent-1/compact")?.body).toEqual({});
    expect(recorded.find((request) => request.path === "/v1/agents/agent-1/history")?.query).toEqual({
      offset: "2",
    });
    // Cancel carries no body: the operation declares none.
    expect(recorded.find((request) => request.path === "/v1/runs/run-1/cancel")?.body).toBeUndefined();
  });

  it("turns error bodies into LongrunApiError with status and code", async () => {
    routes.set("GET /v1/threads/nope", {
      status: 404,
      body: { error: { code: "not_found", message: "no thread" } },
    });
    routes.set("GET /v1/agents/agent-1/context", { status: 503, body: "overloaded" });
    const missing = await client.threads.get("nope").catch((error: unknown) => error);
    expect(LongrunApiError.isInstance(missing)).toBe(true);
    expect(missing).toMatchObject({ status: 404, code: "not_found", message: "no thread" });
    await expect(client.agents.context("agent-1")).rejects.toMatchObject({
      status: 503,
      code: "unavailable",
    });
  });

  it("rejects responses that do not match the protocol schema", async () => {
    routes.set("GET /v1/threads/thread-1", { status: 200, body: { id: "thread-1" } });
    await expect(client.threads.get("thread-1")).rejects.toMatchObject({ status: 200, code: "bad_response" });
  });

  it("reports an unreachable server as unavailable", async () => {
    const offline = createClient({ baseUrl: "http://127.0.0.1:1", token: "secret" });
    await expect(offline.health()).rejects.toMatchObject({ status: 0, code: "unavailable" });
  });
});
