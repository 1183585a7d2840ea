import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { createClient, LongrunApiError, type LongrunClient } from "@longrun/client";
import type { LongrunEvent, ThreadDetail } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";

let dataDir: string;
let instance: EmbeddedInstance;
let alice: LongrunClient;
let bob: LongrunClient;
let bobToken: string;
let thread: ThreadDetail;
let runId: string;

const clients: LongrunClient[] = [];
function clientFor(token: string): LongrunClient {
  const client = createClient({
    baseUrl: instance.url,
    token,
    WebSocket: WebSocket as never,
    reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
  });
  clients.push(client);
  return client;
}

async function statusOf(promise: Promise<unknown>): Promise<number | "ok"> {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (LongrunApiError.isInstance(error)) return error.status;
    throw error;
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-tenants-"));
  const config = loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir });
  instance = await startEmbedded(config);
  // `longrun token create --tenant B`, against the same database file.
  const store = await openLog(config);
  bobToken = (await store.apiKeys.create("B")).token;
  await store.close();
  alice = clientFor(instance.token);
  bob = clientFor(bobToken);
  thread = await alice.threads.create({ model: "sim", simSteps: 3 });
  runId = (await alice.threads.sendMessage(thread.id, { content: "Look around." })).runId;
  await vi.waitFor(
    async () => expect((await alice.threads.get(thread.id)).runs[0]?.status).toBe("completed"),
    { timeout: 30_000, interval: 50 },
  );
});

afterAll(async () => {
  for (const client of clients) client.close();
  await instance?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("tenants: a token sees only its own tenant's threads", () => {
  it("over REST, another tenant's ids are 404 (no existence leak) and its list is empty", async () => {
    const root = thread.agents[0]?.id ?? "";
    expect(await bob.threads.list()).toEqual([]);
    expect(await statusOf(bob.threads.get(thread.id))).toBe(404);
    expect(await statusOf(bob.threads.events(thread.id))).toBe(404);
    expect(await statusOf(bob.threads.sendMessage(thread.id, { content: "hi" }))).toBe(404);
    expect(await statusOf(bob.agents.messages(root))).toBe(404);
    expect(await statusOf(bob.agents.context(root))).toBe(404);
    expect(await statusOf(bob.agents.history(root))).toBe(404);
    expect(await statusOf(bob.agents.compact(root))).toBe(404);
    expect(await statusOf(bob.agents.spawn(root, { agents: [{ name: "x", brief: "y" }] }))).toBe(404);
    expect(await statusOf(bob.runs.cancel(runId))).toBe(404);
    // Nothing of the refused calls reached alice's thread.
    const detail = await alice.threads.get(thread.id);
    expect(detail.runs).toHaveLength(1);
    expect(detail.agents).toHaveLength(1);
    // Bob's own threads work.
    const own = await bob.threads.create({ model: "sim", simSteps: 1 });
    expect(own.tenantId).toBe("B");
    expect((await bob.threads.list()).map((listed) => listed.id)).toEqual([own.id]);
    expect((await alice.threads.list()).map((listed) => listed.id)).not.toContain(own.id);
  });

  it("over WebSocket, another tenant's thread cannot be subscribed to nor commanded", async () => {
    const socket = clientFor(bobToken);
    const refused = socket.subscribe({ threadId: thread.id, since: 0 }, { onEvent: () => undefined });
    const error = await refused.ready.catch((caught: unknown) => caught);
    expect(LongrunApiError.isInstance(error)).toBe(true);
    expect(["not_found", "forbidden"]).toContain((error as LongrunApiError).code);
    const command = await socket
      .command({ kind: "send_message", threadId: thread.id, content: "hi" })
      .catch((caught: unknown) => caught);
    expect(LongrunApiError.isInstance(command) && command.code).toBe("not_found");
  });

  it('a "*" subscription carries only the tenant\'s own threads, live and replayed', async () => {
    const seenByBob: LongrunEvent[] = [];
    const everything = clientFor(bobToken).subscribe(
      { threadId: "*", since: 0 },
      { onEvent: (event) => seenByBob.push(event) },
    );
    await everything.ready;
    const seenByAlice: LongrunEvent[] = [];
    const aliceAll = clientFor(instance.token).subscribe(
      { threadId: "*" },
      { onEvent: (event) => seenByAlice.push(event) },
    );
    await aliceAll.ready;
    const second = await alice.threads.sendMessage(thread.id, { content: "Once more." });
    const own = await bob.threads.create({ model: "sim", simSteps: 1, task: "Say hi." });
    await vi.waitFor(
      () => {
        expect(
          seenByAlice.some((event) => event.type === "run.completed" && event.runId === second.runId),
        ).toBe(true);
        expect(seenByBob.some((event) => event.threadId === own.id && event.type === "run.completed")).toBe(
          true,
        );
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(seenByBob.filter((event) => event.threadId === thread.id)).toEqual([]);
    expect(seenByAlice.filter((event) => event.threadId === own.id)).toEqual([]);
  });

  it("a bad token is refused on the socket too", async () => {
    const stranger = clientFor("definitely-not-a-token");
    const subscription = stranger.subscribe({ threadId: thread.id }, { onEvent: () => undefined });
    const error = await subscription.ready.catch((caught: unknown) => caught);
    expect(LongrunApiError.isInstance(error) && error.code).toBe("unauthorized");
    const upgrade = await new Promise<number>((resolve) => {
      const socket = new WebSocket(`${instance.url.replace("http", "ws")}/v1/ws?token=nope`);
      socket.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0));
      socket.on("open", () => resolve(101));
      socket.on("error", () => undefined);
    });
    expect(upgrade).toBe(401);
  });
});
