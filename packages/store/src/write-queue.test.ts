import { describe, expect, it } from "vitest";
import { acquireWriteQueue, releaseWriteQueue, WriteQueue } from "./write-queue.ts";

describe("WriteQueue", () => {
  it("runs tasks one at a time in order, and a failure does not stop the queue", async () => {
    const queue = new WriteQueue();
    const log: string[] = [];
    let running = 0;
    const task =
      (name: string, fail = false) =>
      async () => {
        running += 1;
        expect(running).toBe(1);
        log.push(`start ${name}`);
        await Promise.resolve();
        log.push(`end ${name}`);
        running -= 1;
        if (fail) throw new Error(name);
        return name;
      };
    const results = await Promise.allSettled([
      queue.run(task("a")),
      queue.run(task("b", true)),
      queue.run(task("c")),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
    expect(queue.pending).toBe(0);
  });

  it("hands out one queue per key until every user released it", () => {
    const first = acquireWriteQueue("key");
    expect(acquireWriteQueue("key")).toBe(first);
    releaseWriteQueue("key");
    releaseWriteQueue("key");
    expect(acquireWriteQueue("key")).not.toBe(first);
    releaseWriteQueue("key");
  });
});
