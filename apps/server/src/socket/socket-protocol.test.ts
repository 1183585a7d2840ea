import { createClient } from "@longrun/client";
import { LongrunError, type NewEvent, type ServerFrame } from "@longrun/protocol";
import { EVENT_WAIT } from "@longrun/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { type GatewayTestServer, openRawClient, startGatewayTestServer } from "./socket-test-server.ts";

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const runStarted = (threadId: string): NewEvent => ({
  threadId,
  type: "run.started",
  data: { kind: "message" },
});
const eventSeqs = (frames: ServerFrame[]) =>
  frames.flatMap((frame) => (frame.type === "event" ? [frame.event.seq] : []));

let server: GatewayTestServer | null = null;

async function start(options: Parameters<typeof startGatewayTestServer>[0] = {}): Promise<GatewayTestServer> {
  server = await startGatewayTestServer(options);
  server.memory.addToken("token-a", "tenant-a");
  server.memory.createThread("thread-a", "tenant-a");
  return server;
}

afterEach(async () => {
  await server?.close();
  server = null;
});

describe("gateway protocol", () => {
  it("rejects an upgrade without a valid token with HTTP 401, accepts header or query token", async () => {
    const { wsUrl } = await start();
    for (const url of [wsUrl, `${wsUrl}?token=wrong`]) {
      const status = await new Promise<number | undefined>((resolve) => {
        const socket = new WebSocket(url);
        socket.on("unexpected-response", (_request, response) => resolve(response.statusCode));
        socket.on("open", () => resolve(undefined));
        socket.on("error", () => undefined);
      });
      expect(status).toBe(401);
    }
    const byHeader = await openRawClient(wsUrl, { authorization: "Bearer token-a" });
    const byQuery = await openRawClient(`${wsUrl}?token=token-a`);
    await vi.waitFor(() => expect(server?.gateway.clients()).toBe(2), EVENT_WAIT);
    byHeader.socket.close();
    byQuery.socket.close();
    await vi.waitFor(() => expect(server?.gateway.clients()).toBe(0), EVENT_WAIT);
  });

  it("stops reconnecting and rejects `ready` when the token is refused", async () => {
    const { baseUrl } = await start();
    const client = createClient({ baseUrl, token: "wrong", WebSocket, reconnect: { initialDelayMs: 10 } });
    const statuses: string[] = [];
    const handle = client.subscribe(
      { threadId: "thread-a" },
      { onEvent: () => undefined, onStatus: (status) => statuses.push(status) },
    );
    await expect(handle.ready).rejects.toMatchObject({ status: 401, code: "unauthorized" });
    expect(statuses).toEqual(["connecting", "reconnecting", "closed"]);
    client.close();
  });

  it("answers malformed frames with bad_frame and keeps the connection open", async () => {
    const { wsUrl } = await start();
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    raw.sendText("{not json");
    raw.send({ type: "subscribe", id: "s1" });
    raw.send({ type: "warp", id: "x" });
    raw.send({ type: "ping", at: 7 });
    await vi.waitFor(() => expect(raw.frames.length).toBe(4), EVENT_WAIT);
    const errors = raw.frames.filter((frame) => frame.type === "error");
    expect(errors.map((frame) => frame.code)).toEqual(["bad_frame", "bad_frame", "bad_frame"]);
    expect(errors[1]).toMatchObject({ id: "s1" });
    expect(raw.frames[3]).toEqual({ type: "pong", at: 7 });
    expect(raw.socket.readyState).toBe(WebSocket.OPEN);
    raw.socket.close();
  });

  it("acknowledges commands with their result and reports failures with the command id", async () => {
    const { baseUrl, memory } = await start();
    memory.commandHandler = async (_tenantId, command) => {
      if (command.kind === "cancel" && command.runId === "missing")
        throw new LongrunError("not_found", "no such run");
      return { ok: true, kind: command.kind };
    };
    const client = createClient({ baseUrl, token: "token-a", WebSocket });
    await expect(client.command({ kind: "cancel", runId: "run-1" })).resolves.toEqual({
      ok: true,
      kind: "cancel",
    });
    await expect(client.command({ kind: "cancel", runId: "missing" })).rejects.toMatchObject({
      code: "not_found",
      message: "no such run",
    });
    expect(memory.commandsSeen).toEqual([
      { tenantId: "tenant-a", command: { kind: "cancel", runId: "run-1" } },
      { tenantId: "tenant-a", command: { kind: "cancel", runId: "missing" } },
    ]);
    client.close();
  });

  it("delivers exactly once on the wire, without client-side de-duplication", async () => {
    const { wsUrl, memory } = await start({ replayPageSize: 5 });
    for (let index = 0; index < 30; index += 1) memory.append(runStarted("thread-a"));
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a", since: -1 });
    for (let index = 0; index < 70; index += 1) {
      memory.append(runStarted("thread-a"));
      if (index % 3 === 0) await yieldToLoop();
    }
    await vi.waitFor(
      () => expect(eventSeqs(raw.frames)).toEqual(Array.from({ length: 100 }, (_, index) => index + 1)),
      EVENT_WAIT,
    );
    expect(raw.frames[0]).toMatchObject({ type: "subscribed", id: "s1" });
    raw.socket.close();
  });

  it("answers `since` above the thread's head with a resync frame, then streams from the head", async () => {
    const { wsUrl, memory } = await start();
    for (let index = 0; index < 3; index += 1) memory.append(runStarted("thread-a"));
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a", since: 50 });
    await vi.waitFor(() => expect(raw.frames.length).toBe(2), EVENT_WAIT);
    expect(raw.frames).toEqual([
      { type: "subscribed", id: "s1", headSeq: 3 },
      {
        type: "resync",
        id: "s1",
        threadId: "thread-a",
        reason: "ahead",
        requestedSince: 50,
        oldestSeq: 1,
        resumeAfter: 3,
      },
    ]);
    memory.append(runStarted("thread-a"));
    memory.append(runStarted("thread-a"));
    await vi.waitFor(() => expect(eventSeqs(raw.frames)).toEqual([4, 5]), EVENT_WAIT);
    raw.socket.close();
  });

  it("sends prepared event frames that a ws client decodes at every length class, multi-byte text included", async () => {
    const { wsUrl, memory } = await start();
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a" });
    await vi.waitFor(() => expect(raw.frames[0]?.type).toBe("subscribed"), EVENT_WAIT);
    // Payload lengths below 126, below 65,536 and above: the three header forms of RFC 6455.
    const outputs = ["", "é".repeat(100), "ü→".repeat(20_000), "x".repeat(70_000)];
    for (const output of outputs) {
      memory.append({
        threadId: "thread-a",
        type: "tool.completed",
        data: { callId: "c", name: "read_file", status: "ok", output },
      } as NewEvent);
    }
    await vi.waitFor(() => expect(eventSeqs(raw.frames)).toEqual([1, 2, 3, 4]), EVENT_WAIT);
    const received = raw.frames.flatMap((frame) =>
      frame.type === "event" && frame.event.type === "tool.completed" ? [frame.event.data.output] : [],
    );
    expect(received).toEqual(outputs);
    expect(raw.frames.every((frame) => frame.type !== "event" || !("tenantId" in frame.event))).toBe(true);
    raw.socket.close();
  });

  it("closes a consumer that never acknowledges with a reason and code 4008", async () => {
    const { wsUrl, memory } = await start({ maxUnacked: 20, maxQueued: 20, stallTimeoutMs: 60_000 });
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a" });
    await vi.waitFor(() => expect(raw.frames[0]?.type).toBe("subscribed"), EVENT_WAIT);
    // Live events keep coming while the window is full: the backlog overflows and the consumer is dropped.
    for (let index = 0; index < 100 && raw.socket.readyState === WebSocket.OPEN; index += 1) {
      memory.append(runStarted("thread-a"));
      await yieldToLoop();
    }
    const closed = await raw.closed;
    expect(closed.code).toBe(4008);
    expect(raw.frames.at(-1)).toEqual({ type: "closing", reason: "slow consumer" });
    expect(eventSeqs(raw.frames)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    await vi.waitFor(() => expect(memory.listenerCount()).toBe(0), EVENT_WAIT);
  });

  it("closes a consumer that stalls a replay past the stall timeout", async () => {
    const { wsUrl, memory } = await start({ maxUnacked: 20, stallTimeoutMs: 200 });
    for (let index = 0; index < 100; index += 1) memory.append(runStarted("thread-a"));
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a", since: -1 });
    const closed = await raw.closed;
    expect(closed).toEqual({ code: 4008, reason: "slow consumer" });
    expect(eventSeqs(raw.frames).length).toBe(20);
  });

  it("keeps a consumer that acknowledges, even far past the window", async () => {
    const { baseUrl, memory } = await start({ maxUnacked: 20, maxQueued: 20 });
    for (let index = 0; index < 500; index += 1) memory.append(runStarted("thread-a"));
    const client = createClient({ baseUrl, token: "token-a", WebSocket });
    const seqs: number[] = [];
    const statuses: string[] = [];
    const handle = client.subscribe(
      { threadId: "thread-a", since: -1 },
      { onEvent: (event) => seqs.push(event.seq), onStatus: (status) => statuses.push(status) },
    );
    await vi.waitFor(() => expect(seqs.length).toBe(500), EVENT_WAIT);
    expect(statuses).toEqual(["connecting", "open"]);
    handle.close();
    client.close();
  });

  it("forwards message deltas live but never replays them", async () => {
    const { wsUrl, memory } = await start();
    memory.delta("thread-a", "lost before subscribing");
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a", since: -1 });
    await vi.waitFor(() => expect(raw.frames[0]?.type).toBe("subscribed"), EVENT_WAIT);
    memory.append(runStarted("thread-a"));
    await vi.waitFor(() => expect(eventSeqs(raw.frames)).toEqual([1]), EVENT_WAIT);
    memory.delta("thread-a", "hello");
    await vi.waitFor(
      () => expect(raw.frames.at(-1)).toMatchObject({ event: { type: "message.delta" } }),
      EVENT_WAIT,
    );
    const texts = raw.frames.flatMap((frame) =>
      frame.type === "event" && frame.event.type === "message.delta" ? [frame.event.data.text] : [],
    );
    expect(texts).toEqual(["hello"]);
    raw.socket.close();
  });

  it("keeps a connection that only listens open: the ws library answers protocol pings", async () => {
    const { wsUrl, memory } = await start({ heartbeatMs: 40 });
    const raw = await openRawClient(`${wsUrl}?token=token-a`);
    let pings = 0;
    raw.socket.on("ping", () => {
      pings += 1;
    });
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a" });
    await vi.waitFor(() => expect(raw.frames[0]?.type).toBe("subscribed"), EVENT_WAIT);
    // After its subscribe the client sends no application frame; ten ping periods pass.
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(10), { timeout: 5_000 });
    memory.append(runStarted("thread-a"));
    await vi.waitFor(() => expect(eventSeqs(raw.frames)).toEqual([1]), EVENT_WAIT);
    expect(raw.socket.readyState).toBe(WebSocket.OPEN);
    expect(raw.frames.some((frame) => frame.type === "heartbeat")).toBe(true);
    expect(raw.frames.some((frame) => frame.type === "closing")).toBe(false);
    raw.send({ type: "ping", at: 7 });
    await vi.waitFor(() => expect(raw.frames).toContainEqual({ type: "pong", at: 7 }), EVENT_WAIT);
    raw.socket.close();
  });

  it("closes a connection that stops answering pings with 4002 and a closing frame", async () => {
    const { wsUrl } = await start({ heartbeatMs: 40 });
    const raw = await openRawClient(`${wsUrl}?token=token-a`, undefined, { autoPong: false });
    let pings = 0;
    raw.socket.on("ping", () => {
      pings += 1;
    });
    const closed = await raw.closed;
    expect(closed).toEqual({ code: 4002, reason: "ping timeout" });
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(raw.frames.at(-1)).toEqual({ type: "closing", reason: "ping timeout" });
    await vi.waitFor(() => expect(server?.gateway.clients()).toBe(0), EVENT_WAIT);
  });

  it("keeps an SDK subscription open without the SDK sending application frames", async () => {
    const { baseUrl } = await start({ heartbeatMs: 30 });
    const sent: string[] = [];
    let pings = 0;
    class RecordingWebSocket extends WebSocket {
      constructor(url: string) {
        super(url);
        this.on("ping", () => {
          pings += 1;
        });
      }
      override send(data: string): void {
        sent.push(data);
        super.send(data);
      }
    }
    const client = createClient({ baseUrl, token: "token-a", WebSocket: RecordingWebSocket });
    const statuses: string[] = [];
    const handle = client.subscribe(
      { threadId: "thread-a" },
      { onEvent: () => undefined, onStatus: (status) => statuses.push(status) },
    );
    await handle.ready;
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(10), { timeout: 5_000 });
    expect(sent.map((frame) => JSON.parse(frame).type)).toEqual(["subscribe"]);
    expect(statuses).toEqual(["connecting", "open"]);
    expect(server?.gateway.clients()).toBe(1);
    handle.close();
    client.close();
  });
});
