import { Run } from "@longrun/protocol";
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

  it("counts a tenant's load: threads with an active top-level run, and the runs queued behind them", async () => {
    const threadOf = (tenantId: string, title: string) =>
      store.threads.create({ tenantId, title, workspaceDir: `/w/${title}`, modelProfile: testProfile });
    const busy = await threadOf("t1", "busy");
    const calm = await threadOf("t1", "calm");
    const done = await threadOf("t1", "done");
    const other = await threadOf("t2", "other");
    const first = await store.runs.create({
      threadId: busy.id,
      agentId: "a",
      kind: "message",
      status: "running",
    });
    await store.runs.create({ threadId: busy.id, agentId: "a", kind: "message" });
    await store.runs.create({ threadId: busy.id, agentId: "a", kind: "message" });
    // A sub-agent's run belongs to its parent's: not a run of its own in the tenant's share.
    await store.runs.create({ threadId: busy.id, agentId: "b", kind: "spawn", parentRunId: first.id });
    await store.runs.create({ threadId: calm.id, agentId: "c", kind: "message", status: "waiting" });
    await store.runs.create({ threadId: done.id, agentId: "d", kind: "message", status: "completed" });
    await store.runs.create({ threadId: other.id, agentId: "e", kind: "message", status: "running" });
    expect(await store.runs.tenantLoad("t1")).toEqual({ activeThreads: 2, queuedRuns: 2 });
    expect(await store.runs.tenantLoad("t2")).toEqual({ activeThreads: 1, queuedRuns: 0 });
    expect(await store.runs.tenantLoad("nobody")).toEqual({ activeThreads: 0, queuedRuns: 0 });
  });

  it("counts stuck runs of the threads asked for only", async () => {
    const stuck = (threadId: string) =>
      store.runs.create({ threadId, agentId: "a", kind: "message", status: "stuck" });
    await stuck("listed");
    await stuck("listed");
    await stuck("other-tenant");
    await store.runs.create({ threadId: "calm", agentId: "b", kind: "message", status: "running" });
    expect(await store.runs.stuckByThread(["listed", "calm", "unknown"])).toEqual(new Map([["listed", 2]]));
    expect(await store.runs.stuckByThread([])).toEqual(new Map());
  });
});
