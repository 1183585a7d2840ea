import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { createClient, LongrunApiError, type LongrunClient } from "@longrun/client";
import type { LongrunEvent, ThreadDetail } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";

let dataDir: string;
let roots: string;
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
  roots = await mkdtemp(join(tmpdir(), "longrun-tenant-roots-"));
  const config = loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir, LONGRUN_WORKSPACE_ROOTS: roots });
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
  await rm(roots, { recursive: true, force: true });
});

/** A raw call with a tenant's token: status and error message (SDK errors hide nothing, but this is plainer). */
async function raw(token: string, method: string, path: string, body?: object) {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, text: await response.text() };
}

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

describe("tenants: nothing of one tenant shows in another's answers (issue 10, item 3)", () => {
  it("/v1/ops lists each tenant's own failures and breakers only", async () => {
    // A window too small for its own system prompt: the run fails with context_exhausted.
    const doomed = await alice.threads.create({
      model: "sim",
      simSteps: 1,
      maxInputTokens: 1024,
      systemPrompt: "Read every file twice before answering. ".repeat(600),
      task: "Start.",
    });
    await vi.waitFor(
      async () => expect((await alice.threads.get(doomed.id)).runs[0]?.status).toBe("failed"),
      { timeout: 30_000, interval: 50 },
    );
    await vi.waitFor(
      async () =>
        expect((await alice.ops.get()).failures.map((failure) => failure.threadId)).toContain(doomed.id),
      { timeout: 60_000, interval: 50 },
    );
    const bobsView = await raw(bobToken, "GET", "/v1/ops");
    expect(bobsView.status).toBe(200);
    expect(JSON.parse(bobsView.text).failures).toEqual([]);
    for (const id of [doomed.id, doomed.agents[0]?.id ?? "", thread.id])
      expect(bobsView.text).not.toContain(id);
  });

  it("an approval, a run or an agent of another tenant is a 404 that names only what was asked", async () => {
    const parked = await alice.threads.create({ model: "sim", simSteps: 2, simScript: "approval" });
    await alice.threads.sendMessage(parked.id, { content: "Check the repository state." });
    let callId = "";
    let agentId = "";
    await vi.waitFor(
      async () => {
        const requested = (await alice.threads.events(parked.id)).find(
          (event) => event.type === "approval.requested",
        );
        expect(requested?.type).toBe("approval.requested");
        if (requested?.type === "approval.requested") {
          callId = requested.data.callId;
          agentId = requested.agentId ?? "";
        }
      },
      { timeout: 30_000, interval: 50 },
    );
    const bobs = await bob.threads.create({ model: "sim", simSteps: 1 });
    const bobAgent = bobs.agents[0]?.id ?? "";
    // Bob guesses the call id under his own agent: no pending call there, and alice's agent is not named.
    const guessed = await raw(bobToken, "POST", `/v1/agents/${bobAgent}/approvals/${callId}`, {
      decision: "approve",
    });
    expect(guessed.status).toBe(404);
    expect(guessed.text).not.toContain(agentId);
    expect(guessed.text).not.toContain(parked.id);
    // Under alice's agent: the agent is not found for bob, and nothing else is named.
    const direct = await raw(bobToken, "POST", `/v1/agents/${agentId}/approvals/${callId}`, {
      decision: "approve",
    });
    expect(direct.status).toBe(404);
    expect(direct.text).not.toContain(parked.id);
    // Another tenant's run: 404 naming the run asked for, not its thread.
    const cancel = await raw(bobToken, "POST", `/v1/runs/${runId}/cancel`);
    expect(cancel.status).toBe(404);
    expect(cancel.text).not.toContain(thread.id);
    // The call is still pending for alice, who decides it once.
    await alice.approvals.resolve(agentId, callId, { decision: "deny" });
  });
});

describe("tenants: named workspaces (issue 10, item 4)", () => {
  it("a folder one tenant uses is refused to another: the same folder, one inside it, one around it, the root", async () => {
    const shared = join(roots, "alice-project");
    await mkdir(join(shared, "sub"), { recursive: true });
    await mkdir(join(roots, "bob-project"));
    const inAlice = await alice.threads.create({ model: "sim", simSteps: 1, workspace: shared });
    expect(inAlice.workspaceDir).toBe(shared);
    // Alice may reuse her own folder.
    expect(
      (await alice.threads.create({ model: "sim", simSteps: 1, workspace: join(shared, "sub") }))
        .workspaceDir,
    ).toBe(join(shared, "sub"));
    for (const folder of [shared, join(shared, "sub"), roots]) {
      const refused = await raw(bobToken, "POST", "/v1/threads", { model: "sim", workspace: folder });
      expect(refused.status, folder).toBe(403);
      expect(JSON.parse(refused.text).error.code, folder).toBe("forbidden");
      expect(refused.text, folder).not.toContain(inAlice.id);
    }
    const own = await bob.threads.create({
      model: "sim",
      simSteps: 1,
      workspace: join(roots, "bob-project"),
    });
    expect(own.workspaceDir).toBe(join(roots, "bob-project"));
    const back = await raw(instance.token, "POST", "/v1/threads", { workspace: join(roots, "bob-project") });
    expect(back.status).toBe(403);
  });

  it("a folder named ..dotdot inside a root is inside it; a path that climbs out is not", async () => {
    const dotted = join(roots, "..dotdot");
    await mkdir(dotted);
    expect((await alice.threads.create({ model: "sim", simSteps: 1, workspace: dotted })).workspaceDir).toBe(
      dotted,
    );
    const climbing = await raw(instance.token, "POST", "/v1/threads", {
      workspace: `${roots}/../${dataDir.split("/").at(-1)}`,
    });
    expect(climbing.status).toBe(403);
  });

  it("the same named folder requested by two tenants at once goes to one of them", async () => {
    const contested = join(roots, "contested");
    await mkdir(contested);
    const answers = await Promise.all([
      raw(instance.token, "POST", "/v1/threads", { model: "sim", simSteps: 1, workspace: contested }),
      raw(bobToken, "POST", "/v1/threads", { model: "sim", simSteps: 1, workspace: contested }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 403]);
  });
});
