import { Run } from "@longrun/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
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

describe("runs", () => {
  it("creates, updates, lists and filters active runs", async () => {
    const first = await store.runs.create({ threadId: "th", agentId: "a", kind: "message", input: "hi" });
    expect(first).toMatchObject({
      status: "queued",
      error: null,
      parentRunId: null,
      jobId: null,
      input: "hi",
    });
    expect(Run.parse(first)).toMatchObject({ id: first.id });
    const child = await store.runs.create({
      threadId: "th",
      agentId: "b",
      kind: "spawn",
      parentRunId: first.id,
      jobId: "job-1",
    });
    const done = await store.runs.create({ threadId: "th", agentId: "a", kind: "compact" });
    await store.runs.create({ threadId: "other", agentId: "x", kind: "message" });

    const started = await store.runs.update(first.id, { status: "running", startedAt: 5 });
    expect(started).toMatchObject({ status: "running", startedAt: 5, input: "hi" });
    await store.runs.update(child.id, { status: "waiting" });
    await store.runs.update(done.id, {
      status: "failed",
      finishedAt: 9,
      error: { code: "internal", message: "boom" },
    });
    expect(await store.runs.get(done.id)).toMatchObject({ error: { code: "internal", message: "boom" } });
    expect(await store.runs.get(child.id)).toMatchObject({ parentRunId: first.id, jobId: "job-1" });

    expect((await store.runs.listByThread("th")).map((run) => run.id)).toEqual([first.id, child.id, done.id]);
    expect((await store.runs.active("th")).map((run) => run.id)).toEqual([first.id, child.id]);
    await expect(store.runs.update("missing", { status: "failed" })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await store.runs.get("missing")).toBeNull();
  });
});
