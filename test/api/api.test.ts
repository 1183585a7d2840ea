import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import { createClient, LongrunApiError, type LongrunClient } from "@longrun/client";
import type { LongrunEvent } from "@longrun/protocol";
import { createTempWorkspace, type TempWorkspace } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let dataDir: string;
let allowed: TempWorkspace;
let instance: EmbeddedInstance;
let client: LongrunClient;

/** A raw HTTP call with the instance's token unless told otherwise. */
async function call(
  method: string,
  path: string,
  options: { body?: string | object; token?: string | null } = {},
): Promise<{
  status: number;
  json: { error?: { code: string; message: string } } & Record<string, unknown>;
}> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const token = options.token === undefined ? instance.token : options.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers,
    ...(options.body === undefined
      ? {}
      : { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : {} };
}

async function runFinished(threadId: string, runId: string) {
  await vi.waitFor(
    async () => {
      const detail = await client.threads.get(threadId);
      expect(detail.runs.find((run) => run.id === runId)?.finishedAt).not.toBeNull();
    },
    { timeout: 60_000, interval: 50 },
  );
  return client.threads.get(threadId);
}

async function eventsOf(threadId: string): Promise<LongrunEvent[]> {
  return client.threads.events(threadId, { since: 0, limit: 10_000 });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-api-"));
  allowed = await createTempWorkspace();
  instance = await startEmbedded(
    loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir, LONGRUN_WORKSPACE_ROOTS: allowed.dir }),
  );
  client = createClient({ baseUrl: instance.url, token: instance.token });
});

afterAll(async () => {
  await instance?.close();
  await allowed?.cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

describe("health, metrics and the OpenAPI document", () => {
  it("answers /healthz and /readyz without a token, /metrics to the operator's", async () => {
    expect(await call("GET", "/healthz", { token: null })).toEqual({ status: 200, json: { ok: true } });
    const ready = await call("GET", "/readyz", { token: null });
    expect(ready).toEqual({ status: 200, json: { ok: true, checks: { database: true } } });
    expect((await fetch(`${instance.url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${instance.url}/metrics`, {
      headers: { authorization: `Bearer ${instance.token}` },
    });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    const text = await metrics.text();
    for (const name of [
      "longrun_runs_total",
      "longrun_steps_total",
      "longrun_compactions_total",
      "longrun_tokens_saved_total",
      "longrun_queue_depth",
      "longrun_websocket_clients",
    ])
      expect(text).toContain(`# TYPE ${name}`);
  });

  it("serves an OpenAPI 3.1 document generated from the request schemas", async () => {
    const { status, json } = await call("GET", "/v1/openapi.json", { token: null });
    expect(status).toBe(200);
    expect(json.openapi).toBe("3.1.0");
    const paths = json.paths as Record<string, Record<string, Record<string, unknown>>>;
    for (const [path, method] of [
      ["/v1/threads", "post"],
      ["/v1/threads", "get"],
      ["/v1/threads/{id}", "get"],
      ["/v1/threads/{id}/messages", "post"],
      ["/v1/runs/{id}/cancel", "post"],
      ["/v1/agents/{id}/approvals/{callId}", "post"],
      ["/v1/agents/{id}/compact", "post"],
      ["/v1/agents/{id}/messages", "get"],
      ["/v1/agents/{id}/context", "get"],
      ["/v1/threads/{id}/events", "get"],
      ["/healthz", "get"],
      ["/metrics", "get"],
    ] as const)
      expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    const properties =
      (json.components as { schemas: Record<string, { properties: Record<string, { type?: string }> }> })
        .schemas.CreateThreadBody?.properties ?? {};
    expect(properties.maxInputTokens?.type).toBe("integer");
    expect(properties.simSteps?.type).toBe("integer");
    const approval = paths["/v1/agents/{id}/approvals/{callId}"]?.post?.requestBody as {
      content: { "application/json": { schema: { $ref: string } } };
    };
    expect(approval.content["application/json"].schema.$ref).toBe("#/components/schemas/ApprovalBody");
    const schemas = (json.components as { schemas: Record<string, { properties: Record<string, unknown> }> })
      .schemas;
    expect(schemas.ApprovalBody?.properties.decision).toMatchObject({ enum: ["approve", "deny"] });
    // The unscoped approval route is gone: call ids are unique per agent only.
    expect(paths["/v1/approvals/{callId}"]).toBeUndefined();
  });
});

describe("errors: JSON {error: {code, message}} with the right status", () => {
  it("401 without a token or with an invalid one, over REST and the SDK", async () => {
    const missing = await call("GET", "/v1/threads", { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json.error?.code).toBe("unauthorized");
    const invalid = await call("GET", "/v1/threads", { token: "not-a-real-token-at-all" });
    expect(invalid.status).toBe(401);
    expect(invalid.json.error).toEqual({ code: "unauthorized", message: "invalid token" });
    const stranger = createClient({ baseUrl: instance.url, token: "wrong-token-wrong-token" });
    const error = await stranger.threads.list().catch((caught: unknown) => caught);
    expect(LongrunApiError.isInstance(error) && error.status).toBe(401);
  });

  it("400 for a bad body, naming the field", async () => {
    const wrongType = await call("POST", "/v1/threads", { body: { maxInputTokens: "lots" } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.error?.code).toBe("bad_request");
    expect(wrongType.json.error?.message).toMatch(/^maxInputTokens: /);
    const tooSmall = await call("POST", "/v1/threads", { body: { maxInputTokens: 10 } });
    expect(tooSmall.json.error?.message).toMatch(/maxInputTokens/);
    const notJson = await call("POST", "/v1/threads", { body: "{not json" });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error?.message).toMatch(/invalid JSON body/);

    const thread = await client.threads.create({ model: "sim", simSteps: 1 });
    const noContent = await call("POST", `/v1/threads/${thread.id}/messages`, { body: {} });
    expect(noContent.status).toBe(400);
    expect(noContent.json.error?.message).toMatch(/^content: /);
    const badDecision = await call("POST", `/v1/agents/${thread.agents[0]?.id}/approvals/call_x`, {
      body: { decision: "maybe" },
    });
    expect(badDecision.status).toBe(400);
    expect(badDecision.json.error?.message).toMatch(/^decision: /);
    const badSince = await call("GET", `/v1/threads/${thread.id}/events?since=soon`);
    expect(badSince.status).toBe(400);
    expect(badSince.json.error?.message).toMatch(/since/);
    const badSpawn = await call("POST", `/v1/agents/${thread.agents[0]?.id}/spawn`, {
      body: { agents: [{ name: "x" }] },
    });
    expect(badSpawn.status).toBe(400);
    expect(badSpawn.json.error?.message).toMatch(/agents\.0\.brief/);
  });

  it("404 for unknown ids and unknown routes", async () => {
    for (const [method, path, body] of [
      ["GET", "/v1/threads/nope"],
      ["GET", "/v1/threads/nope/events"],
      ["POST", "/v1/threads/nope/messages", { content: "hi" }],
      ["GET", "/v1/agents/nope/messages"],
      ["GET", "/v1/agents/nope/context"],
      ["POST", "/v1/agents/nope/compact", {}],
      ["POST", "/v1/runs/nope/cancel", {}],
      ["POST", "/v1/agents/nope/approvals/nope", { decision: "approve" }],
      ["POST", "/v1/approvals/nope", { decision: "approve" }],
      ["GET", "/v1/nothing-here"],
    ] as const) {
      const response = await call(method, path, body === undefined ? {} : { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.json.error?.code, `${method} ${path}`).toBe("not_found");
    }
  });

  it("413 for a body over the size limit", async () => {
    const huge = await call("POST", "/v1/threads", { body: { task: "x".repeat(3 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.json.error?.code).toBe("payload_too_large");
  });

  it("workspaces: a new folder by default, an existing folder inside the roots, anything else refused", async () => {
    const fresh = await client.threads.create({ model: "sim", simSteps: 1 });
    expect(fresh.workspaceDir.startsWith(join(dataDir, "workspaces"))).toBe(true);
    const project = join(allowed.dir, "project");
    await mkdir(project);
    const named = await client.threads.create({ model: "sim", simSteps: 1, workspace: project });
    expect(named.workspaceDir).toBe(project);
    const outside = await call("POST", "/v1/threads", { body: { workspace: tmpdir() } });
    expect(outside.status).toBe(403);
    expect(outside.json.error?.code).toBe("forbidden");
    const missing = await call("POST", "/v1/threads", { body: { workspace: join(allowed.dir, "nope") } });
    expect(missing.status).toBe(400);
  });
});

describe("routes through the SDK", () => {
  it("creates, lists, reads a thread, runs a message and reads facts, context, events and history", async () => {
    const thread = await client.threads.create({
      title: "sdk",
      model: "sim",
      simSteps: 4,
      maxInputTokens: 8000,
    });
    expect(thread.title).toBe("sdk");
    expect(thread.agents).toHaveLength(1);
    expect(thread.modelProfile.maxInputTokens).toBe(8000);
    expect((await client.threads.list()).map((listed) => listed.id)).toContain(thread.id);
    const root = thread.agents[0]?.id ?? "";

    const posted = await client.threads.sendMessage(thread.id, { content: "Look around the workspace." });
    expect(posted).toMatchObject({ queued: false, position: 0 });
    expect(posted.messageId).toEqual(expect.any(String));
    const detail = await runFinished(thread.id, posted.runId);
    expect(detail.runs.find((run) => run.id === posted.runId)?.status).toBe("completed");

    const facts = await client.agents.messages(root);
    expect(facts.messages[1]).toMatchObject({ id: posted.messageId, role: "user" });
    expect(facts.messages.at(-1)?.role).toBe("assistant");
    const page = await client.agents.messages(root, { afterSeq: 1, limit: 2 });
    expect(page.messages.map((message) => message.seq)).toEqual([2, 3]);
    expect(page.nextAfterSeq).toBe(3);

    const context = await client.agents.context(root);
    expect(context.agentId).toBe(root);
    expect(context.messages.length).toBe(context.marks.length);
    expect(context.messages[0]?.role).toBe("system");
    expect(context.tokens).toBeGreaterThan(0);
    expect(context.maxInputTokens).toBe(8000);
    expect(context.triggerTokens).toBe(5280); // 66 % of the window (PROFILE_DEFAULTS.triggerRatio)

    const events = await eventsOf(thread.id);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(events.filter((event) => event.type === "run.completed").map((event) => event.runId)).toEqual([
      posted.runId,
    ]);
    const since = await client.threads.events(thread.id, { since: 3 });
    expect(since[0]?.seq).toBe(4);
    expect((await client.agents.history(root)).agentId).toBe(root);
    expect((await client.ops.get()).mode).toBe("embedded");
  });

  it("queues a second message behind the active run and cancels a run", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 100_000 });
    const first = await client.threads.sendMessage(thread.id, { content: "Keep exploring." });
    const second = await client.threads.sendMessage(thread.id, { content: "Then this." });
    expect(second).toMatchObject({ queued: true, position: 1, messageId: null });
    const cancelled = await client.runs.cancel(first.runId);
    expect(cancelled.status).toBe("cancelled");
    await vi.waitFor(
      async () => {
        const events = await eventsOf(thread.id);
        expect(events.some((event) => event.type === "run.cancelled" && event.runId === first.runId)).toBe(
          true,
        );
        expect(events.some((event) => event.type === "run.started" && event.runId === second.runId)).toBe(
          true,
        );
      },
      { timeout: 60_000, interval: 50 },
    );
    await client.runs.cancel(second.runId);
    const again = await client.runs.cancel(first.runId);
    expect(again.status).toBe("cancelled");
  });

  it("spawns a team from the API", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 2 });
    const root = thread.agents[0]?.id ?? "";
    const spawned = await client.agents.spawn(root, {
      agents: [
        { name: "helper-a", brief: "List the workspace." },
        { name: "helper-b", brief: "Read the README." },
      ],
    });
    expect(spawned.agents.map((agent) => agent.name)).toEqual(["helper-a", "helper-b"]);
    expect(spawned.agents.every((agent) => agent.parentAgentId === root && agent.inherit === "fresh")).toBe(
      true,
    );
    const detail = await runFinished(thread.id, spawned.runId ?? "");
    expect(detail.agents).toHaveLength(3);
    expect(detail.runs.find((run) => run.id === spawned.runId)?.status).toBe("completed");
  });

  it("a second approval of the same call is a 409 conflict", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 2, simScript: "approval" });
    const posted = await client.threads.sendMessage(thread.id, { content: "Check the repository state." });
    let callId = "";
    let agentId = "";
    await vi.waitFor(
      async () => {
        const requested = (await eventsOf(thread.id)).find((event) => event.type === "approval.requested");
        expect(requested).toBeDefined();
        callId = requested?.type === "approval.requested" ? requested.data.callId : "";
        agentId = requested?.agentId ?? "";
      },
      { timeout: 60_000, interval: 50 },
    );
    const approvals = `/v1/agents/${agentId}/approvals/${callId}`;
    // The same call id under another agent is not this call.
    const otherAgent = await client.threads.create({ model: "sim", simSteps: 1 });
    const elsewhere = await call("POST", `/v1/agents/${otherAgent.agents[0]?.id}/approvals/${callId}`, {
      body: { decision: "approve" },
    });
    expect(elsewhere.status).toBe(404);
    const first = await call("POST", approvals, { body: { decision: "approve" } });
    expect(first).toEqual({ status: 200, json: { ok: true } });
    const second = await call("POST", approvals, { body: { decision: "deny" } });
    expect(second.status).toBe(409);
    expect(second.json.error?.code).toBe("conflict");
    await runFinished(thread.id, posted.runId);
    // Still a conflict once the approved call has run.
    const late = await call("POST", approvals, { body: { decision: "approve" } });
    expect(late.status).toBe(409);
    const resolved = (await eventsOf(thread.id)).filter((event) => event.type === "approval.resolved");
    expect(resolved).toHaveLength(1);
  });
});

describe("manual compaction via the API (I7)", () => {
  it("compacts and ends the turn: no tool call, no model continuation", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 12, maxInputTokens: 16_000 });
    const root = thread.agents[0]?.id ?? "";
    const posted = await client.threads.sendMessage(thread.id, { content: "Survey the workspace." });
    await runFinished(thread.id, posted.runId);
    const before = (await client.agents.messages(root)).messages;

    const { runId } = await client.agents.compact(root, {});
    const detail = await runFinished(thread.id, runId);
    expect(detail.runs.find((run) => run.id === runId)).toMatchObject({
      kind: "compact",
      status: "completed",
    });
    const runEvents = (await eventsOf(thread.id)).filter((event) => event.runId === runId);
    const types = runEvents.map((event) => event.type);
    expect(types).toContain("compaction.completed");
    const completed = runEvents.find((event) => event.type === "compaction.completed");
    expect(completed?.type === "compaction.completed" && completed.data.trigger).toBe("manual");
    for (const type of ["context.measured", "tool.started", "tool.completed", "message.delta"])
      expect(types).not.toContain(type);
    // The command itself is recorded as a user fact; nothing from the model follows it.
    const messages = runEvents.filter((event) => event.type === "message.completed");
    expect(messages.map((event) => event.type === "message.completed" && event.data.role)).toEqual(["user"]);
    const after = (await client.agents.messages(root)).messages;
    expect(after.filter((message) => message.role === "assistant")).toHaveLength(
      before.filter((message) => message.role === "assistant").length,
    );
    expect(detail.agents[0]?.status).toBe("idle");
    const context = await client.agents.context(root);
    expect(context.compaction?.trigger).toBe("manual");
    expect(context.marks).toContain("summary");
  });
});
