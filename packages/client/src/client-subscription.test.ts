import type { ClientFrame, LongrunEvent } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { ClientSubscription } from "./client-subscription.ts";

const event = (threadId: string, seq: number): LongrunEvent => ({
  threadId,
  seq,
  type: "run.started",
  data: { kind: "message" },
  at: 0,
});

describe("ClientSubscription", () => {
  it("resumes one thread from the last seq seen and drops duplicates", () => {
    const seen: number[] = [];
    const subscription = new ClientSubscription(
      "s1",
      { threadId: "t" },
      { onEvent: (e) => seen.push(e.seq) },
      () => {},
    );
    expect(subscription.subscribeFrame()).toEqual({ type: "subscribe", id: "s1", threadId: "t" });
    subscription.onSubscribed(4, undefined);
    for (const seq of [5, 6, 6, 5, 7]) subscription.onEvent(event("t", seq));
    expect(seen).toEqual([5, 6, 7]);
    expect(subscription.subscribeFrame()).toMatchObject({ since: 7 });
    // Duplicates are still acknowledged: the server counted them as outstanding.
    expect(subscription.takeAcks()).toEqual([{ type: "ack", id: "s1", threadId: "t", seq: 7 }]);
  });

  it("for '*' resumes each thread at its own seq and replays threads it never saw", () => {
    const subscription = new ClientSubscription("s2", { threadId: "*" }, { onEvent: () => {} }, () => {});
    subscription.onSubscribed(9, { a: 9, b: -1 });
    subscription.onEvent(event("b", 0));
    subscription.onEvent(event("c", 0));
    const frame = subscription.subscribeFrame() as Extract<ClientFrame, { type: "subscribe" }>;
    expect(frame).toMatchObject({ since: -1, sinceByThread: { a: 9, b: 0, c: 0 } });
    // A second `subscribed` (after a reconnect) must not move resume points back to the heads.
    subscription.onSubscribed(20, { a: 20, b: 5, c: 3 });
    expect(subscription.lastSeq("a")).toBe(9);
  });

  it("restarts a thread's cursor where a resync says the stream continues", () => {
    const seen: number[] = [];
    const resyncs: unknown[] = [];
    const subscription = new ClientSubscription(
      "s4",
      { threadId: "t", since: 40 },
      { onEvent: (e) => seen.push(e.seq), onResync: (info) => resyncs.push(info) },
      () => {},
    );
    subscription.onSubscribed(3, undefined);
    const info = {
      threadId: "t",
      reason: "ahead" as const,
      requestedSince: 40,
      oldestSeq: 1,
      resumeAfter: 3,
    };
    subscription.onResync(info);
    for (const seq of [4, 5]) subscription.onEvent(event("t", seq));
    expect(seen).toEqual([4, 5]);
    expect(resyncs).toEqual([info]);
    expect(subscription.subscribeFrame()).toMatchObject({ since: 5 });
  });

  it("rejects ready when refused, without an unhandled rejection", async () => {
    const errors: Error[] = [];
    const subscription = new ClientSubscription(
      "s3",
      { threadId: "t" },
      { onEvent: () => {}, onError: (error) => errors.push(error) },
      () => {},
    );
    subscription.fail(new Error("forbidden"));
    await expect(subscription.ready).rejects.toThrow("forbidden");
    expect(errors).toHaveLength(1);
  });
});
