import { LongrunEvent, type NewEvent } from "@longrun/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { testProfile } from "./__fixtures__/profile.ts";
import { tempStore } from "./__fixtures__/temp-store.ts";
import type { Store } from "./open-store.ts";

let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
});
afterEach(async () => {
  await cleanup();
});

const delta = (threadId: string, text: string): NewEvent => ({
  threadId,
  agentId: "a",
  type: "message.delta",
  data: { text },
});

describe("events", () => {
  it("assigns a gapless per-thread seq from 1 and reads after a seq", async () => {
    expect(await store.events.head("t1")).toBe(0);
    expect(await store.events.oldest("t1")).toBeNull();
    const first = await store.events.append({
      threadId: "t1",
      runId: "r1",
      type: "run.started",
      data: { kind: "x" },
    });
    expect(LongrunEvent.parse(first)).toEqual(first);
    expect(first).toMatchObject({ seq: 1, runId: "r1" });
    expect(first).not.toHaveProperty("agentId");
    const concurrent = await Promise.all(
      Array.from({ length: 50 }, (_, index) => store.events.append(delta("t1", `${index}`))),
    );
    await store.events.append(delta("t2", "other thread"));
    const batch = await store.events.appendMany([delta("t1", "b1"), delta("t2", "b2"), delta("t1", "b3")]);
    expect(batch.map((event) => [event.threadId, event.seq])).toEqual([
      ["t1", 52],
      ["t2", 2],
      ["t1", 53],
    ]);

    expect(new Set(concurrent.map((event) => event.seq)).size).toBe(50);
    const all = await store.events.after("t1", 0);
    expect(all.map((event) => event.seq)).toEqual(Array.from({ length: 53 }, (_, index) => index + 1));
    expect(all[1]).toEqual(concurrent[0]);
    expect((await store.events.after("t1", 50, 2)).map((event) => event.seq)).toEqual([51, 52]);
    expect(await store.events.head("t1")).toBe(53);
    expect(await store.events.oldest("t1")).toBe(1);
    expect(await store.events.appendMany([])).toEqual([]);
  });

  it("prunes old events but never resets the sequence", async () => {
    for (let index = 0; index < 5; index += 1) await store.events.append(delta("t", `${index}`));
    expect(await store.events.prune("t", 4)).toBe(3);
    expect(await store.events.oldest("t")).toBe(4);
    // Pruning everything empties the log, yet the next seq continues from the head.
    expect(await store.events.prune("t", 100)).toBe(2);
    expect(await store.events.oldest("t")).toBeNull();
    expect(await store.events.head("t")).toBe(5);
    expect((await store.events.append(delta("t", "next"))).seq).toBe(6);
  });

  it("applies retention by count per thread and by age, and seqs go on", async () => {
    for (let index = 0; index < 10; index += 1) await store.events.append(delta("a", `${index}`));
    for (let index = 0; index < 3; index += 1) await store.events.append(delta("b", `${index}`));
    expect(await store.events.pruneRetention({ keepPerThread: 4 })).toBe(6);
    expect(await store.events.oldest("a")).toBe(7);
    expect(await store.events.oldest("b")).toBe(1);
    expect(await store.events.pruneRetention({ maxAgeMs: 60_000 })).toBe(0);
    expect(await store.events.pruneRetention({ maxAgeMs: -1 })).toBe(7);
    expect((await store.events.append(delta("a", "next"))).seq).toBe(11);
  });

  it("reads a tenant's events across threads after per-thread cursors", async () => {
    const mine = await store.threads.create({
      tenantId: "me",
      title: "a",
      workspaceDir: "/a",
      modelProfile: testProfile,
    });
    const mine2 = await store.threads.create({
      tenantId: "me",
      title: "b",
      workspaceDir: "/b",
      modelProfile: testProfile,
    });
    const theirs = await store.threads.create({
      tenantId: "you",
      title: "c",
      workspaceDir: "/c",
      modelProfile: testProfile,
    });
    for (const thread of [mine, mine2, theirs]) {
      for (let index = 0; index < 3; index += 1) await store.events.append(delta(thread.id, `${index}`));
    }
    const everything = await store.events.afterForTenant("me");
    expect(everything).toHaveLength(6);
    expect(everything.every((event) => event.threadId !== theirs.id)).toBe(true);
    const resumed = await store.events.afterForTenant("me", { [mine.id]: 2 });
    expect(resumed.map((event) => [event.threadId, event.seq])).toEqual(
      expect.arrayContaining([
        [mine.id, 3],
        [mine2.id, 1],
        [mine2.id, 2],
        [mine2.id, 3],
      ]),
    );
    expect(resumed).toHaveLength(4);
    expect(await store.events.afterForTenant("me", {}, 2)).toHaveLength(2);
  });
});
