import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import { createClient, type LongrunClient } from "@longrun/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";

/** Issue 10, items 7 and 10, and the message-size cap: every bound holds at the door, with a clear error. */

const MAX_MESSAGE_CHARS = 5_000;
let dataDir: string;
let instance: EmbeddedInstance;
let client: LongrunClient;

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${instance.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { error?: { code: string; message: string } } & Record<
    string,
    unknown
  >;
  return { status: response.status, json };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-bounds-"));
  instance = await startEmbedded(
    loadConfig({
      PORT: "0",
      LONGRUN_DATA_DIR: dataDir,
      LONGRUN_MAX_MESSAGE_CHARS: String(MAX_MESSAGE_CHARS),
    }),
  );
  client = createClient({ baseUrl: instance.url, token: instance.token, WebSocket: WebSocket as never });
});

afterAll(async () => {
  client?.close();
  await instance?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("reads are bounded (item 7)", () => {
  it("refuses a negative, fractional, non-numeric or over-cap limit/since/afterSeq with 400", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 1 });
    const agent = thread.agents[0]?.id ?? "";
    for (const path of [
      `/v1/threads/${thread.id}/events?limit=-1`,
      `/v1/threads/${thread.id}/events?limit=0`,
      `/v1/threads/${thread.id}/events?limit=10001`,
      `/v1/threads/${thread.id}/events?limit=2.5`,
      `/v1/threads/${thread.id}/events?since=-2`,
      `/v1/threads/${thread.id}/events?since=soon`,
      `/v1/agents/${agent}/messages?limit=-1`,
      `/v1/agents/${agent}/messages?afterSeq=-2`,
      `/v1/agents/${agent}/messages?limit=5001`,
      `/v1/agents/${agent}/history?offset=-1`,
      "/v1/threads?limit=-1",
      "/v1/threads?limit=1001",
    ]) {
      const answer = await call("GET", path);
      expect(answer.status, path).toBe(400);
      expect(answer.json.error?.code, path).toBe("bad_request");
      expect(answer.json.error?.message, path).toMatch(/^query (limit|since|afterSeq|offset): /);
    }
  });

  it("pages with a cursor: limit is honoured and nextSince / nextAfterSeq continue where it stopped", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 2, task: "Look around." });
    await vi.waitFor(
      async () => expect((await client.threads.get(thread.id)).runs[0]?.finishedAt).not.toBeNull(),
      {
        timeout: 30_000,
        interval: 50,
      },
    );
    const all = await client.threads.events(thread.id, { limit: 10_000 });
    const first = await client.threads.eventsPage(thread.id, { limit: 3 });
    expect(first.events.map((event) => event.seq)).toEqual([1, 2, 3]);
    expect(first.nextSince).toBe(3);
    const rest = await client.threads.eventsPage(thread.id, { since: first.nextSince ?? 0, limit: 10_000 });
    expect([...first.events, ...rest.events].map((event) => event.seq)).toEqual(
      all.map((event) => event.seq),
    );
    expect(rest.nextSince).toBeNull();
    const facts = await client.agents.messages(thread.agents[0]?.id ?? "", { limit: 1 });
    expect(facts.messages).toHaveLength(1);
    expect(facts.nextAfterSeq).toBe(facts.messages[0]?.seq);
  });
});

describe("thread creation is validated up front (item 10)", () => {
  it("caps profile.maxInputTokens like the top-level field and bounds triggerRatio and keepRatio", async () => {
    for (const [body, field] of [
      [{ profile: { maxInputTokens: 1e15 } }, "profile.maxInputTokens"],
      [{ maxInputTokens: 1e15 }, "maxInputTokens"],
      [{ profile: { triggerRatio: 0.0001 } }, "profile.triggerRatio"],
      [{ profile: { triggerRatio: 1.5 } }, "profile.triggerRatio"],
      [{ profile: { keepRatio: 0.9 } }, "profile.keepRatio"],
      [{ profile: { fallbackTriggerTokens: 1e15 } }, "profile.fallbackTriggerTokens"],
    ] as const) {
      const answer = await call("POST", "/v1/threads", body);
      expect(answer.status, field).toBe(400);
      expect(answer.json.error?.message, field).toMatch(new RegExp(`^${field.replace(".", "\\.")}: `));
    }
    const fine = await client.threads.create({ model: "sim", simSteps: 1, profile: { triggerRatio: 0.6 } });
    expect(fine.modelProfile.triggerRatio).toBe(0.6);
  });

  it("refuses an unknown model or sim script at creation with 400, naming what is offered", async () => {
    const before = (await client.threads.list()).length;
    const model = await call("POST", "/v1/threads", { model: "gpt-nonexistent", task: "hi" });
    expect(model.status).toBe(400);
    expect(model.json.error?.message).toMatch(/^model: unknown model "gpt-nonexistent"; GET \/v1\/models/);
    const script = await call("POST", "/v1/threads", { model: "sim", simScript: "nonsense" });
    expect(script.status).toBe(400);
    expect(script.json.error?.message).toMatch(
      /simScript: unknown script "nonsense"; model sim offers explorer/,
    );
    const summarizer = await call("POST", "/v1/threads", { profile: { summarizerModel: "nope" } });
    expect(summarizer.status).toBe(400);
    // Nothing was created by the refused requests.
    expect((await client.threads.list()).length).toBe(before);
  });

  it("refuses a NUL in a title, a task, a message or a brief with 400 naming the field", async () => {
    const refused = await call("POST", "/v1/threads", { title: "before\u0000after" });
    expect(refused.status).toBe(400);
    expect(refused.json.error?.message).toMatch(/^title: must not contain NUL/);
    const spawnName = await call("POST", "/v1/threads", {});
    expect(spawnName.status).toBe(201);
    const root = (spawnName.json.agents as Array<{ id: string }>)[0]?.id ?? "";
    const badName = await call("POST", `/v1/agents/${root}/spawn`, {
      agents: [{ name: "a\u0000b", brief: "x" }],
    });
    expect(badName.status).toBe(400);
    const before = (await client.threads.list()).length;
    const task = await call("POST", "/v1/threads", { model: "sim", simSteps: 1, task: "left\u0000right" });
    expect(task.status).toBe(400);
    expect(task.json.error?.message).toMatch(/^task: must not contain NUL/);
    expect((await client.threads.list()).length).toBe(before);
    const thread = await client.threads.create({ model: "sim", simSteps: 1, title: "plain" });
    const message = await call("POST", `/v1/threads/${thread.id}/messages`, { content: "left\u0000right" });
    expect(message.status).toBe(400);
    expect(message.json.error?.message).toMatch(/^content: must not contain NUL/);
    const facts = await client.agents.messages(thread.agents[0]?.id ?? "");
    expect(facts.messages.some((fact) => JSON.stringify(fact.content).includes("\\u0000"))).toBe(false);
    const brief = await call("POST", `/v1/agents/${root}/spawn`, {
      agents: [{ name: "ab", brief: "x\u0000y" }],
    });
    expect(brief.status).toBe(400);
  });

  it("refuses a malformed x-longrun-max-input-tokens on the gateway with 400, and takes a good one", async () => {
    const gateway = (window: string) =>
      fetch(`${instance.url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${instance.token}`,
          "content-type": "application/json",
          "x-longrun-max-input-tokens": window,
          "x-longrun-conversation": `window-${window}`,
        },
        body: JSON.stringify({ model: "sim", messages: [{ role: "user", content: "hi" }] }),
      });
    for (const window of ["-1", "1e12", "12.5", "8k", "0", "99999999999", "1023"]) {
      const refused = await gateway(window);
      expect(refused.status, window).toBe(400);
      const body = (await refused.json()) as { error: { message: string } };
      expect(body.error.message).toMatch(/x-longrun-max-input-tokens: expected a whole number of tokens/);
    }
    const taken = await gateway("8192");
    expect(taken.status).toBe(200);
    await taken.text();
  });
});

describe("GET /v1/models", () => {
  it("lists the sim in the OpenAI list shape with its window, scripts and upstream wire format", async () => {
    const answer = await call("GET", "/v1/models");
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      object: "list",
      data: [
        {
          id: "sim",
          object: "model",
          created: 0,
          owned_by: "longrun",
          longrun: {
            maxInputTokens: 128_000,
            default: true,
            simScripts: ["explorer", "team", "approval", "writer", "coder"],
            // Which wire format longrun's own agents call this model with.
            upstreamApi: "chat-completions",
          },
        },
      ],
    });
  });
});

describe("message size cap (LONGRUN_MAX_MESSAGE_CHARS) → 413", () => {
  it("refuses an over-long message, task or brief with a clear 413 and stores nothing", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 1 });
    const tooLong = "x".repeat(MAX_MESSAGE_CHARS + 1);
    const message = await call("POST", `/v1/threads/${thread.id}/messages`, { content: tooLong });
    expect(message.status).toBe(413);
    expect(message.json.error).toEqual({
      code: "payload_too_large",
      message: `content is ${MAX_MESSAGE_CHARS + 1} characters; this server accepts at most ${MAX_MESSAGE_CHARS} (LONGRUN_MAX_MESSAGE_CHARS)`,
    });
    // Over the schema's hard limit too: still "too large", not "bad request".
    const huge = await call("POST", `/v1/threads/${thread.id}/messages`, { content: "y".repeat(1_000_001) });
    expect(huge.status).toBe(413);
    const task = await call("POST", "/v1/threads", { task: tooLong });
    expect(task.status).toBe(413);
    const brief = await call("POST", `/v1/agents/${thread.agents[0]?.id}/spawn`, {
      agents: [{ name: "helper", brief: tooLong }],
    });
    expect(brief.status).toBe(413);
    expect((await client.threads.get(thread.id)).runs).toEqual([]);
    const exact = await client.threads.sendMessage(thread.id, { content: "z".repeat(MAX_MESSAGE_CHARS) });
    expect(exact.runId).toEqual(expect.any(String));
  });

  it("refuses an over-long send_message over the WebSocket with the same code", async () => {
    const thread = await client.threads.create({ model: "sim", simSteps: 1 });
    const error = await client
      .command({ kind: "send_message", threadId: thread.id, content: "w".repeat(MAX_MESSAGE_CHARS + 1) })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "payload_too_large" });
  });
});

describe("request body over the server's limit → 413", () => {
  it("reads an announced over-limit body to its end before the 413, so a sender mid-write never sees a reset", async () => {
    // A raw socket, as a client that writes its whole body before reading: headers for 6 MiB against
    // the 2 MiB default, then the body in 64 KiB chunks, each write awaited. A server that answers
    // and closes at once makes these writes fail (EPIPE / ECONNRESET) and the client never reads its 413.
    const { hostname, port } = new URL(instance.url);
    const size = 6 * 1024 * 1024;
    const socket = connect({ host: hostname, port: Number(port) });
    await once(socket, "connect");
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    const closed = once(socket, "close");
    const write = (data: string) =>
      new Promise<void>((resolve, reject) =>
        socket.write(data, (error) => (error ? reject(error) : resolve())),
      );
    await write(
      `POST /v1/threads HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${instance.token}\r\n` +
        `content-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
    );
    const chunk = "z".repeat(64 * 1024);
    for (let sent = 0; sent < size; sent += chunk.length) await write(chunk);
    // The same keep-alive connection carries the next request.
    await write(`GET /healthz HTTP/1.1\r\nhost: ${hostname}\r\nconnection: close\r\n\r\n`);
    await closed;
    const [first, second] = answer.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 413/);
    expect(first).toContain('"code":"payload_too_large"');
    expect(first?.toLowerCase()).not.toContain("connection: close");
    expect(second).toMatch(/^HTTP\/1\.1 200/);
  });

  it("answers 413 through fetch every time, and the next request works", async () => {
    const body = JSON.stringify({ title: "x", pad: "z".repeat(6 * 1024 * 1024) });
    for (let attempt = 0; attempt < 5; attempt++) {
      const response = await fetch(`${instance.url}/v1/threads`, {
        method: "POST",
        headers: { authorization: `Bearer ${instance.token}`, "content-type": "application/json" },
        body,
      });
      expect(response.status).toBe(413);
      expect(await response.json()).toMatchObject({ error: { code: "payload_too_large" } });
      expect((await call("GET", "/v1/threads")).status).toBe(200);
    }
  });
});

describe("the gateway's body limit (4 MiB) → 413", () => {
  it("refuses an 8 MiB chat completion body with 413, and reads a 3 MiB one", async () => {
    const post = (body: string) =>
      fetch(`${instance.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${instance.token}`, "content-type": "application/json" },
        body,
      });
    const content = "z".repeat(8 * 1024 * 1024);
    const over = await post(JSON.stringify({ model: "sim", messages: [{ role: "user", content }] }));
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ error: { code: "payload_too_large" } });
    // Under the limit the body is read and judged: this one is not JSON, so 400, not 413.
    const under = await post(`{"model":"sim","messages":[${"z".repeat(3 * 1024 * 1024)}`);
    expect(under.status).toBe(400);
    await under.text();
    expect((await call("GET", "/v1/threads")).status).toBe(200);
  });
});

describe("a body the answer never read", () => {
  it("is read to its end, so the keep-alive connection carries the next request (404, 401)", async () => {
    // A 400 kB body to a route that does not exist or without a token: answered before the body is
    // read. Left unread, the node adapter closed the socket under the client's next request ("other
    // side closed"), found by the hostile-input fuzz.
    const body = JSON.stringify({ pad: "z".repeat(400_000) });
    const refused = [
      { path: "/v1/agents//spawn", token: instance.token, status: 404 },
      { path: "/v1/threads", token: "not-a-token-0123456789", status: 401 },
      { path: "/nowhere", token: instance.token, status: 404 },
    ];
    for (const { path, token, status } of refused) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await fetch(`${instance.url}${path}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body,
        });
        expect(response.status).toBe(status);
        expect(response.headers.get("connection")).not.toBe("close");
        await response.text();
        expect((await call("GET", "/v1/threads")).status).toBe(200);
      }
    }
  });
});
