import { describe, expect, expectTypeOf, it } from "vitest";
import { type EventData, type EventType, eventTypeMatches, eventTypes, LongrunEvent } from "./events.ts";
import { ClientFrame, ServerFrame } from "./frames.ts";

describe("event union", () => {
  it("narrows data by type", () => {
    expectTypeOf<EventData<"compaction.completed">>().toHaveProperty("tokensAfter").toEqualTypeOf<number>();
    expectTypeOf<EventData<"breaker.opened">>().toHaveProperty("cooldownMs").toEqualTypeOf<number>();
    expectTypeOf<"compaction.started">().toExtend<EventType>();
    expectTypeOf<"compaction.nope">().not.toExtend<EventType>();
    const event = LongrunEvent.parse({
      threadId: "t",
      seq: 3,
      type: "run.failed",
      data: { error: { code: "x", message: "y" } },
      at: 1,
    });
    if (event.type === "run.failed") expectTypeOf(event.data.error.code).toEqualTypeOf<string>();
    expect(event.type).toBe("run.failed");
  });

  it("lists every DESIGN §9 event once", () => {
    const required = [
      "thread.created",
      "run.started",
      "run.completed",
      "run.failed",
      "run.cancelled",
      "agent.spawned",
      "agent.status",
      "message.delta",
      "message.completed",
      "tool.started",
      "tool.completed",
      "approval.requested",
      "approval.resolved",
      "context.measured",
      "compaction.started",
      "compaction.completed",
      "compaction.failed",
      "breaker.opened",
      "breaker.closed",
    ];
    for (const type of required) expect(eventTypes).toContain(type);
    expect(new Set(eventTypes).size).toBe(eventTypes.length);
  });

  it("rejects data that does not match its type", () => {
    const result = LongrunEvent.safeParse({ threadId: "t", seq: 1, type: "run.failed", data: {}, at: 1 });
    expect(result.success).toBe(false);
  });

  it("matches type filters with prefixes", () => {
    expect(eventTypeMatches("compaction.failed", ["compaction.*"])).toBe(true);
    expect(eventTypeMatches("compactionx.failed", ["compaction.*"])).toBe(false);
    expect(eventTypeMatches("run.started", ["compaction.*"])).toBe(false);
    expect(eventTypeMatches("run.started", undefined)).toBe(true);
  });
});

describe("frames", () => {
  it("parses client frames and rejects malformed ones", () => {
    const frame = ClientFrame.parse({
      type: "subscribe",
      id: "s1",
      threadId: "*",
      types: ["compaction.*"],
      since: 4,
    });
    expect(frame.type).toBe("subscribe");
    expect(ClientFrame.safeParse({ type: "subscribe", id: "s1" }).success).toBe(false);
    expect(ClientFrame.safeParse({ type: "command", id: "c", command: { kind: "nope" } }).success).toBe(
      false,
    );
    expectTypeOf<Extract<ClientFrame, { type: "command" }>["command"]["kind"]>().toEqualTypeOf<
      "send_message" | "approve" | "compact" | "cancel"
    >();
  });

  it("narrows server frames", () => {
    expectTypeOf<Extract<ServerFrame, { type: "resync" }>>().toHaveProperty("oldestSeq");
    const frame = ServerFrame.parse({ type: "heartbeat", at: 1 });
    expect(frame.type).toBe("heartbeat");
  });
});
