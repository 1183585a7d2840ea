import type { Socket } from "node:net";
import type { NewEvent, ServerFrame } from "@longrun/protocol";
import { EVENT_WAIT } from "@longrun/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type GatewayTestServer, openRawClient, startGatewayTestServer } from "./socket-test-server.ts";

const runStarted = (threadId: string): NewEvent => ({
  threadId,
  type: "run.started",
  data: { kind: "message" },
});
const eventSeqs = (frames: ServerFrame[], subscription?: string) =>
  frames.flatMap((frame) =>
    frame.type === "event" && (subscription === undefined || frame.subscription === subscription)
      ? [frame.event.seq]
      : [],
  );
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);

/** Counts the system-call-level writes (`_write` or `_writev`) of every server-side socket. */
function countWrites(server: GatewayTestServer): { count: number } {
  const counter = { count: 0 };
  server.server.on("connection", (socket: Socket) => {
    const writable = socket as Socket & {
      _write(...args: unknown[]): void;
      _writev(...args: unknown[]): void;
    };
    const write = writable._write.bind(socket);
    const writev = writable._writev.bind(socket);
    writable._write = (...args) => {
      counter.count += 1;
      write(...args);
    };
    writable._writev = (...args) => {
      counter.count += 1;
      writev(...args);
    };
  });
  return counter;
}

let server: GatewayTestServer | null = null;

afterEach(async () => {
  await server?.close();
  server = null;
});

describe("gateway fan-out", () => {
  it("writes several frames of one event-loop run to a socket in two writes, in order", async () => {
    server = await startGatewayTestServer();
    const writes = countWrites(server);
    server.memory.addToken("token-a", "tenant-a");
    server.memory.createThread("thread-a", "tenant-a");
    const raw = await openRawClient(`${server.wsUrl}?token=token-a`);
    for (const id of ["s1", "s2", "s3"]) raw.send({ type: "subscribe", id, threadId: "thread-a" });
    await vi.waitFor(
      () => expect(raw.frames.filter((frame) => frame.type === "subscribed")).toHaveLength(3),
      EVENT_WAIT,
    );

    // One event fanned out to three subscriptions of one connection: the first frame leaves at once, the
    // other two wait corked for the end of the run.
    let before = writes.count;
    server.memory.append(runStarted("thread-a"));
    await vi.waitFor(() => expect(eventSeqs(raw.frames)).toEqual([1, 1, 1]), EVENT_WAIT);
    expect(writes.count - before).toBe(2);

    // Twenty events published in one run (a backlog read off a bus): 60 frames, still two writes.
    before = writes.count;
    for (let index = 0; index < 20; index += 1) server.memory.append(runStarted("thread-a"));
    await vi.waitFor(() => expect(eventSeqs(raw.frames).length).toBe(63), EVENT_WAIT);
    expect(writes.count - before).toBe(2);
    for (const id of ["s1", "s2", "s3"]) expect(eventSeqs(raw.frames, id)).toEqual(range(1, 22));
    raw.socket.close();
  });

  it("writes a large batch out before it is over, so buffered bytes stay bounded", async () => {
    server = await startGatewayTestServer();
    const writes = countWrites(server);
    server.memory.addToken("token-a", "tenant-a");
    server.memory.createThread("thread-a", "tenant-a");
    const raw = await openRawClient(`${server.wsUrl}?token=token-a`);
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a" });
    await vi.waitFor(() => expect(raw.frames[0]?.type).toBe("subscribed"), EVENT_WAIT);
    const before = writes.count;
    const output = "x".repeat(10_000);
    // About 400 KB in one run: released every 64 KiB, not held to the end.
    for (let index = 0; index < 40; index += 1) {
      server.memory.append({
        threadId: "thread-a",
        type: "tool.completed",
        data: { callId: `c${index}`, name: "read_file", status: "ok", output },
      } as NewEvent);
    }
    await vi.waitFor(() => expect(eventSeqs(raw.frames)).toEqual(range(1, 41)), EVENT_WAIT);
    expect(writes.count - before).toBeGreaterThanOrEqual(6);
    expect(writes.count - before).toBeLessThanOrEqual(9);
    raw.socket.close();
  });

  it("sends a new subscriber's replay page in few writes and then streams live without a gap", async () => {
    server = await startGatewayTestServer({ replayPageSize: 200 });
    const writes = countWrites(server);
    server.memory.addToken("token-a", "tenant-a");
    server.memory.createThread("thread-a", "tenant-a");
    for (let index = 0; index < 150; index += 1) server.memory.append(runStarted("thread-a"));
    const raw = await openRawClient(`${server.wsUrl}?token=token-a`);
    const before = writes.count;
    raw.send({ type: "subscribe", id: "s1", threadId: "thread-a", since: 0 });
    await vi.waitFor(() => expect(eventSeqs(raw.frames).length).toBe(150), EVENT_WAIT);
    // The subscribed frame and 150 replayed events, all sent in one run: the first frame, then the rest.
    expect(writes.count - before).toBeLessThanOrEqual(3);
    server.memory.append(runStarted("thread-a"));
    await vi.waitFor(() => expect(eventSeqs(raw.frames)).toEqual(range(1, 152)), EVENT_WAIT);
    raw.socket.close();
  });
});
