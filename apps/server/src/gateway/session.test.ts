import type { ServerFrame } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MemoryGatewayDeps } from "./memory-gateway-deps.ts";
import { createSession, type GatewaySession } from "./session.ts";

/** The session runs without any socket: frames in, frames out through a plain transport object. */
function harness() {
  const memory = new MemoryGatewayDeps();
  memory.createThread("thread-a", "tenant-a");
  const frames: ServerFrame[] = [];
  const closes: { code: number; reason: string }[] = [];
  let buffered = 0;
  const session = createSession({
    tenantId: "tenant-a",
    deps: memory.deps(),
    transport: {
      send: (frame) => frames.push(frame),
      close: (code, reason) => closes.push({ code, reason }),
      bufferedAmount: () => buffered,
    },
    options: { maxBufferedBytes: 1_000 },
  });
  return { memory, frames, closes, session, setBuffered: (bytes: number) => (buffered = bytes) };
}

let current: GatewaySession | null = null;
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
    await vi.waitFor(() => expect(closes).toEqual([{ code: 4008, reason: "slow consumer" }]));
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
      transport: { send: (frame) => frames.push(frame), close: () => undefined, bufferedAmount: () => 0 },
    });
    await broken.handle({ type: "subscribe", id: "s1", threadId: "thread-a", since: 0 });
    await vi.waitFor(() =>
      expect(frames.at(-1)).toEqual({ type: "error", id: "s1", code: "internal", message: "disk gone" }),
    );
    expect(broken.subscriptionCount()).toBe(0);
    broken.dispose();
  });
});
