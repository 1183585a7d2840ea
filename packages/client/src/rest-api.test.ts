import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { WebSocketServer } from "ws";
import { createClient, type LongrunClient } from "./client.ts";
import {
  AbortError,
  AuthenticationError,
  ConnectionError,
  InternalServerError,
  LongrunError,
  NotFoundError,
  RateLimitError,
  TimeoutError,
} from "./errors.ts";

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

/**
 * Canned answers by "METHOD path", the first of a list each time (the last one stays); `hang` never
 * answers. The test server records every request it gets.
 */
type Answer = { status: number; body: unknown; headers?: Record<string, string> } | "hang";
const routes = new Map<string, Answer | Answer[]>();
const recorded: Recorded[] = [];
let server: Server;
let client: LongrunClient;
let baseUrl: string;

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
      const next = Array.isArray(route) ? (route.length > 1 ? route.shift() : route[0]) : route;
      const answer = next ?? { status: 404, body: { error: { code: "not_found", message: "no route" } } };
      if (answer === "hang") return;
      response.writeHead(answer.status, {
        "content-type": "application/json",
        "x-request-id": `request-${recorded.length}`,
        ...answer.headers,
      });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}/`;
  client = createClient({ baseUrl, token: "secret", maxRetries: 0 });
});

afterAll(async () => {
  server.closeAllConnections();
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

  it("turns error bodies into error classes per status, with code and request id", async () => {
    routes.set("GET /v1/threads/nope", {
      status: 404,
      body: { error: { code: "not_found", message: "no thread" } },
    });
    routes.set("GET /v1/agents/agent-1/context", { status: 503, body: "overloaded" });
    const missing = await client.threads.get("nope").catch((error: unknown) => error);
    expect(NotFoundError.isInstance(missing)).toBe(true);
    expect(LongrunError.isInstance(missing)).toBe(true);
    expect(AuthenticationError.isInstance(missing)).toBe(false);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({
      name: "NotFoundError",
      status: 404,
      code: "not_found",
      message: "no thread",
      requestId: "request-1",
    });
    const overloaded = await client.agents.context("agent-1").catch((error: unknown) => error);
    expect(InternalServerError.isInstance(overloaded)).toBe(true);
    expect(overloaded).toMatchObject({ status: 503, code: "unavailable" });
  });

  it("rejects responses that do not match the protocol schema", async () => {
    routes.set("GET /v1/threads/thread-1", { status: 200, body: { id: "thread-1" } });
    await expect(client.threads.get("thread-1")).rejects.toMatchObject({ status: 200, code: "bad_response" });
  });

  it("reports an unreachable server as a ConnectionError", async () => {
    const offline = createClient({ baseUrl: "http://127.0.0.1:1", token: "secret", maxRetries: 0 });
    const error = await offline.health().catch((caught: unknown) => caught);
    expect(ConnectionError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 0, code: "unavailable" });
  });
});

describe("retries, timeouts and cancellation", () => {
  const limited = { status: 429, body: { error: { code: "rate_limited", message: "slow down" } } };

  it("retries a 429 after its Retry-After, then succeeds", async () => {
    routes.set("GET /healthz", [
      { ...limited, headers: { "retry-after": "1" } },
      { status: 200, body: { ok: true } },
    ]);
    const retrying = createClient({ baseUrl, token: "secret", maxRetries: 2 });
    await expect(retrying.health()).resolves.toEqual({ ok: true });
    expect(recorded).toHaveLength(2);
  });

  it("gives up after maxRetries with a RateLimitError carrying retryAfter", async () => {
    routes.set("GET /healthz", { ...limited, headers: { "retry-after-ms": "5" } });
    const error = await createClient({ baseUrl, token: "secret", maxRetries: 1 })
      .health()
      .catch((caught: unknown) => caught);
    expect(RateLimitError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429, retryAfter: 0.005 });
    expect(recorded).toHaveLength(2);
  });

  it("retries 5xx on idempotent calls only: a POST that may have landed is not sent twice", async () => {
    const failing = { status: 502, body: { error: { code: "internal", message: "bad gateway" } } };
    routes.set("POST /v1/threads/thread-1/messages", failing);
    routes.set("GET /v1/ops", [
      failing,
      { status: 200, body: { mode: "embedded", workers: [], queues: [], breakers: [], failures: [] } },
    ]);
    const retrying = createClient({
      baseUrl,
      token: "secret",
      maxRetries: 3,
      reconnect: { initialDelayMs: 1 },
    });
    await expect(retrying.threads.sendMessage("thread-1", { content: "hi" })).rejects.toMatchObject({
      status: 502,
    });
    expect(recorded).toHaveLength(1);
    await expect(retrying.ops.get()).resolves.toMatchObject({ mode: "embedded" });
    expect(recorded).toHaveLength(3);
  });

  it("times out a call that gets no answer, per client or per call", async () => {
    routes.set("GET /healthz", "hang");
    const error = await client.health({ timeout: 50 }).catch((caught: unknown) => caught);
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect(ConnectionError.isInstance(error)).toBe(true);
    const impatient = createClient({ baseUrl, token: "secret", timeout: 50, maxRetries: 1 });
    await expect(impatient.health()).rejects.toBeInstanceOf(TimeoutError);
    expect(recorded).toHaveLength(3);
  });

  it("ends a call when its AbortSignal aborts, without retrying", async () => {
    routes.set("GET /healthz", "hang");
    const controller = new AbortController();
    const pending = createClient({ baseUrl, token: "secret", maxRetries: 5 }).health({
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(recorded).toHaveLength(1), { timeout: 20_000 });
    controller.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(AbortError.isInstance(error)).toBe(true);
    expect(recorded).toHaveLength(1);
  });

  it("runs.wait's timeout holds while the server has not yet confirmed the subscription", async () => {
    // A real socket server that accepts the connection and never answers the subscribe: before, the
    // deadline closed the subscription while runs.wait awaited its confirmation, which then never came,
    // so the call hung until the caller gave up (under load the SDK test hit vitest's 30 s timeout).
    routes.set("GET /v1/runs/run-1", {
      status: 200,
      body: { run: { ...run, status: "running", finishedAt: null } },
    });
    const silent = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    const subscribes: unknown[] = [];
    silent.on("connection", (socket) =>
      socket.on("message", (data) => subscribes.push(JSON.parse(String(data)))),
    );
    await new Promise((resolve) => silent.once("listening", resolve));
    const { port } = silent.address() as AddressInfo;
    const waiting = createClient({ baseUrl, token: "secret", wsUrl: `ws://127.0.0.1:${port}/v1/ws` });
    try {
      const error = await waiting.runs.wait("run-1", { timeout: 200 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TimeoutError);
      expect(subscribes).toMatchObject([{ type: "subscribe", threadId: "thread-1", types: ["run.*"] }]);
    } finally {
      waiting.close();
      for (const socket of silent.clients) socket.terminate();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("refuses unknown or malformed options with a clear message", () => {
    expect(() => createClient({ baseUrl, token: "t", maxRetry: 3 } as never)).toThrow(
      /unknown option "maxRetry" \(known: baseUrl, token, timeout, maxRetries/,
    );
    expect(() => createClient({ baseUrl, token: "t", reconnect: { initialDelay: 5 } } as never)).toThrow(
      /unknown option "reconnect.initialDelay"/,
    );
    expect(() => createClient({ baseUrl: "localhost", token: "t" })).toThrow(/option "baseUrl"/);
  });
});
