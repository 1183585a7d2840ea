import type { ServerFrame } from "@longrun/protocol";
import { EVENT_WAIT } from "@longrun/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemorySocketDeps } from "./memory-socket-deps.ts";
import { createSession, type SocketSession } from "./session.ts";

/** The session runs without any socket: frames in, frames out through a plain transport object. */
function harness(options: { heartbeatMs?: number; answer?: "pong" | "frame" | "nothing" } = {}) {
  const memory = new MemorySocketDeps();
  memory.createThread("thread-a", "tenant-a");
  const frames: ServerFrame[] = [];
  const closes: { code: number; reason: string }[] = [];
  let buffered = 0;
  let pings = 0;
  const session: SocketSession = createSession({
    tenantId: "tenant-a",
    deps: memory.deps(),
    transport: {
      send: (frame) => frames.push(frame),
      sendEvent: (subscription, event) => frames.push({ type: "event", subscription, event }),
      close: (code, reason) => closes.push({ code, reason }),
      ping: () => {
        pings += 1;
        if (options.answer === "pong") session.alive();
        if (options.answer === "frame") session.receive('{"type":"ack","id":"none","seq":1}');
      },
      bufferedAmount: () => buffered,
    },
    options: { maxBufferedBytes: 1_000, heartbeatMs: options.heartbeatMs ?? 15_000 },
  });
  return {
    memory,
    frames,
    closes,
    session,
    pings: () => pings,
    setBuffered: (bytes: number) => (buffered = bytes),
  };
}

let current: SocketSession | null = null;
afterEach(() => current?.dispose());

describe("gateway session (transport-independent)", () => {
  it("refuses a duplicate subscription id and acknowledges unsubscribe", async () => {
    const { session, frames, memory } = harness();
    current = session;
    await session.handle({ type: "subscribe", id: "s1", threadId: "thread-a" });
    await session.handle({ type: "subscribe", id: "s1", threadId: "thread-a" });
    expect(frames).toEqual([
      { type: "subscribed", id: "s1", headSeq: 0 },
      { type: "error", id: "s1", code: "conflict", message: "subscription s1 exists" },
    ]);
    await session.handle({ type: "unsubscribe", id: "s1" });
    expect(frames.at(-1)).toEqual({ type: "ack", id: "s1", ok: true });
    expect(memory.listenerCount()).toBe(0);
    expect(session.subscriptionCount()).toBe(0);
  });

  it("stays open while the peer answers pings or sends frames, closes with 4002 once it does neither", async () => {
    for (const answer of ["pong", "frame"] as const) {
      const { session, closes, pings, frames } = harness({ heartbeatMs: 5, answer });
      current = session;
      await vi.waitFor(() => expect(pings()).toBeGreaterThanOrEqual(10), EVENT_WAIT);
      expect(closes).toEqual([]);
      expect(frames.filter((frame) => frame.type === "heartbeat").length).toBe(pings());
      session.dispose();
    }
    const { session, closes, pings, frames } = harness({ heartbeatMs: 5, answer: "nothing" });
    current = session;
    await vi.waitFor(() => expect(closes).toEqual([{ code: 4002, reason: "ping timeout" }]));
    expect(pings()).toBe(1);
    expect(frames.at(-1)).toEqual({ type: "closing", reason: "ping timeout" });
  });

  it("maps unexpected command failures to an internal error with the command id", async () => {
    const { session, frames, memory } = harness();
    current = session;
    memory.commandHandler = async () => {
      throw new Error("boom");
    };
    await session.handle({ type: "command", id: "c1", command: { kind: "compact", agentId: "agent-1" } });
    expect(frames).toEqual([{ type: "error", id: "c1", code: "internal", message: "boom" }]);
  });

  it("drops a consumer whose socket buffer exceeds the byte limit", async () => {
    const { session, frames, closes, memory, setBuffered } = harness();
    current = session;
    await session.handle({ type: "subscribe", id: "s1", threadId: "thread-a" });
    setBuffered(5_000);
    memory.append({ threadId: "thread-a", type: "run.started", data: { kind: "message" } });
    await vi.waitFor(() => expect(closes).toEqual([{ code: 4008, reason: "slow consumer" }]), EVENT_WAIT);
    expect(frames.at(-1)).toEqual({ type: "closing", reason: "slow consumer" });
    expect(memory.listenerCount()).toBe(0);
  });

  it("reports a failing durable log as an error frame for that subscription", async () => {
    const { session, frames, memory } = harness();
    current = session;
    memory.append({ threadId: "thread-a", type: "run.started", data: { kind: "message" } });
    const deps = memory.deps();
    const broken = createSession({
      tenantId: "tenant-a",
      deps: { ...deps, log: { ...deps.log, after: async () => Promise.reject(new Error("disk gone")) } },
      transport: {
        send: (frame) => frames.push(frame),
        sendEvent: () => undefined,
        close: () => undefined,
        ping: () => undefined,
        bufferedAmount: () => 0,
      },
    });
    await broken.handle({ type: "subscribe", id: "s1", threadId: "thread-a", since: 0 });
    await vi.waitFor(
      () =>
        expect(frames.at(-1)).toEqual({ type: "error", id: "s1", code: "internal", message: "disk gone" }),
      EVENT_WAIT,
    );
    expect(broken.subscriptionCount()).toBe(0);
    broken.dispose();
  });
});
