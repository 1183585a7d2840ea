import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import { createClient, type LongrunClient } from "@longrun/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let dataDir: string;
let instance: EmbeddedInstance;
let client: LongrunClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-watch-"));
  instance = await startEmbedded(loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir }));
  client = createClient({ baseUrl: instance.url, token: instance.token });
});

afterAll(async () => {
  await instance?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("API for watching clients", () => {
  it("snapshot, approvals inbox and compactions of a thread waiting for a decision", async () => {
    const thread = await client.threads.create({
      title: "Needs a decision",
      simScript: "approval",
      simSteps: 6,
      maxInputTokens: 8000,
      task: "List the workspace files with a shell command, then report.",
    });
    const inbox = await vi.waitFor(
      async () => {
        const pending = await client.approvals.pending();
        expect(pending.length).toBe(1);
        return pending;
      },
      { timeout: 60_000, interval: 100 },
    );
    const root = thread.agents[0]!;
    expect(inbox[0]).toMatchObject({
      threadId: thread.id,
      agentId: root.id,
      threadTitle: "Needs a decision",
      agentName: root.name,
      toolName: "run_command",
      decision: null,
    });

    const listed = (await client.threads.list()).find((item) => item.id === thread.id);
    expect(listed).toMatchObject({ pendingApprovals: 1, stuckRuns: 0 });

    const snapshot = await client.threads.snapshot(thread.id);
    const events = await client.threads.events(thread.id, { since: 0, limit: 10_000 });
    // Nothing was written while the thread waits: the snapshot's head is the log's head.
    expect(snapshot.headSeq).toBe(events.at(-1)?.seq);
    expect(snapshot.thread.id).toBe(thread.id);
    expect(snapshot.thread.agents.find((agent) => agent.id === root.id)?.status).toBe("waiting_approval");
    expect(snapshot.approvals.map((approval) => approval.callId)).toEqual([inbox[0]!.callId]);
    const activity = snapshot.activity.find((entry) => entry.agentId === root.id);
    const measured = events.filter((event) => event.type === "context.measured").at(-1);
    if (measured?.type !== "context.measured") throw new Error("no context.measured event");
    expect(activity).toMatchObject({
      step: measured.data.step,
      measuredSeq: measured.seq,
      lastEventAt: events.filter((event) => event.agentId === root.id).at(-1)?.at,
    });
    expect(activity?.tokens).toBeGreaterThan(0);

    // History filtered to what a watcher draws: the same events, only those types.
    const filtered = await client.threads.events(thread.id, { since: 0, types: "run.*,context.measured" });
    expect(filtered.map((event) => event.seq)).toEqual(
      events
        .filter((event) => event.type.startsWith("run.") || event.type === "context.measured")
        .map((event) => event.seq),
    );
    expect(filtered.length).toBeGreaterThan(1);

    await client.approvals.resolve(root.id, inbox[0]!.callId, { decision: "deny", reason: "not now" });
    await vi.waitFor(async () => expect(await client.approvals.pending()).toEqual([]), {
      timeout: 30_000,
      interval: 100,
    });
    expect(await client.agents.compactions(root.id)).toEqual([]);
    expect((await client.threads.list()).find((item) => item.id === thread.id)?.pendingApprovals).toBe(0);
  }, 120_000);

  it("lists only the compactions after the first n, each with the coverage the whole list gives it", async () => {
    const thread = await client.threads.create({
      title: "Compacts a few times",
      simSteps: 30,
      maxInputTokens: 8000,
      task: "Survey the inventory service and report its modules, tests and docs.",
    });
    await vi.waitFor(
      async () => {
        const detail = await client.threads.get(thread.id);
        expect(detail.runs.length).toBeGreaterThan(0);
        expect(detail.runs.every((run) => run.finishedAt !== null)).toBe(true);
      },
      { timeout: 90_000, interval: 200 },
    );
    const agentId = thread.agents[0]!.id;
    const all = await client.agents.compactions(agentId);
    expect(all.length).toBeGreaterThan(1);
    // A client holding the first one reads the rest, coverage and all, exactly as the full list has them.
    expect(await client.agents.compactions(agentId, { offset: 1 })).toEqual(all.slice(1));
    expect(await client.agents.compactions(agentId, { offset: all.length })).toEqual([]);
    await expect(client.agents.compactions(agentId, { offset: -1 })).rejects.toMatchObject({
      code: "bad_request",
    });
  }, 120_000);

  it("refuses an events filter that is not a list of types", async () => {
    const threads = await client.threads.list();
    await expect(
      client.threads.events(threads[0]!.id, { since: 0, types: "run.*;drop table" }),
    ).rejects.toMatchObject({ code: "bad_request" });
  });

  it("answers 404 for the snapshot of a thread that does not exist", async () => {
    await expect(client.threads.snapshot("no-such-thread")).rejects.toMatchObject({ code: "not_found" });
  });

  it("counts a listed thread's stuck runs (read for the listed threads only)", async () => {
    const thread = await client.threads.create({ title: "Stuck once" });
    const agentId = thread.agents[0]!.id;
    const store = instance.runtime.deps.store;
    for (let index = 0; index < 2; index += 1)
      await store.runs.create({ threadId: thread.id, agentId, kind: "message", status: "stuck" });
    const listed = await client.threads.list();
    expect(listed.find((item) => item.id === thread.id)).toMatchObject({ stuckRuns: 2 });
    expect(listed.filter((item) => item.id !== thread.id).every((item) => item.stuckRuns === 0)).toBe(true);
  });
});
