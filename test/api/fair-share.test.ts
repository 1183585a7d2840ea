import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { TARPIT_MAX_HELD_PER_TENANT } from "@longrun/runtime";
import { EVENT_WAIT } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

let dataDir: string;
let roots: string;
let instance: EmbeddedInstance;
let bobToken: string;

// Tenant B's share, small enough to reach in a test; A (the default tenant) keeps the defaults.
const B_LIMITS = { maxRunningRuns: 12, maxQueuedRuns: 4, requestsPerSecond: 2, requestBurst: 60 };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-fair-"));
  roots = await mkdtemp(join(tmpdir(), "longrun-fair-roots-"));
  const config = loadConfig({
    PORT: "0",
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_WORKSPACE_ROOTS: roots,
    // One step at a time: every step of every tenant waits in the one queue, so its order is visible.
    LONGRUN_WORKER_CONCURRENCY: "1",
    LONGRUN_TENANT_LIMITS: JSON.stringify({ B: B_LIMITS }),
  });
  instance = await startEmbedded(config);
  const store = await openLog(config);
  bobToken = (await store.apiKeys.create("B")).token;
  await store.close();
});

afterAll(async () => {
  await instance?.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(roots, { recursive: true, force: true });
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { error?: { code: string }; id?: string; runs?: Array<{ id: string; status: string }> };
}

async function call(token: string, method: string, path: string, body?: object): Promise<Answer> {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    body: (await response.json()) as Answer["body"],
  };
}

/** Steps an agent has taken: one assistant message each. */
async function stepsOf(agentIds: string[]): Promise<number> {
  let steps = 0;
  for (const agentId of agentIds) {
    const messages = await instance.runtime.deps.store.messages.list(agentId, { limit: 10_000 });
    steps += messages.filter((message) => message.role === "assistant").length;
  }
  return steps;
}

describe("fair shares: tenant B floods, tenant A is served", () => {
  const bobThreads: string[] = [];

  it("refuses B's runs past its limit of runs under way with 429 too_many_runs and Retry-After, from 20 parallel clients", async () => {
    const task = { model: "sim", simSteps: 40, simScript: "explorer", task: "Explore the workspace." };
    const answers = (
      await Promise.all(
        Array.from({ length: 20 }, async () => [
          await call(bobToken, "POST", "/v1/threads", task),
          await call(bobToken, "POST", "/v1/threads", task),
        ]),
      )
    ).flat();
    const created = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(created).toHaveLength(B_LIMITS.maxRunningRuns);
    expect(refused).toHaveLength(40 - B_LIMITS.maxRunningRuns);
    for (const answer of refused) {
      expect(answer.body.error?.code).toBe("too_many_runs");
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    bobThreads.push(...created.map((answer) => answer.body.id as string));
  });

  it("refuses B's messages past its queued-run limit, counted across its threads", async () => {
    const answers = await Promise.all(
      bobThreads.map((threadId) =>
        call(bobToken, "POST", `/v1/threads/${threadId}/messages`, { content: "And then?" }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(B_LIMITS.maxQueuedRuns);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(bobThreads.length - B_LIMITS.maxQueuedRuns);
    expect(refused.every((answer) => answer.body.error?.code === "too_many_runs")).toBe(true);
  });

  it("admits A's next run at once and runs its steps ahead of B's backlog", async () => {
    const store = instance.runtime.deps.store;
    const bobAgents = (await Promise.all(bobThreads.map((id) => store.agents.listByThread(id)))).flatMap(
      (agents) => agents.map((agent) => agent.id),
    );
    const ops = await call(instance.token, "GET", "/v1/ops");
    const agentQueue = (ops.body as { queues: Array<{ name: string; waiting: number }> }).queues.find(
      (queue) => queue.name === "agent",
    );
    const backlog = agentQueue?.waiting ?? 0;
    // B's agents each have a step waiting: the one FIFO of before would put A behind all of them.
    expect(backlog).toBeGreaterThanOrEqual(B_LIMITS.maxRunningRuns - 2);

    const created = await call(instance.token, "POST", "/v1/threads", {
      model: "sim",
      simSteps: 3,
      simScript: "explorer",
      task: "Explore the workspace.",
    });
    expect(created.status).toBe(201);
    // Counted from A's admission (its first step is queued by then), not from before the thread's setup.
    const bobStepsBefore = await stepsOf(bobAgents);
    const threadId = created.body.id as string;
    await vi.waitFor(
      async () => {
        const thread = await call(instance.token, "GET", `/v1/threads/${threadId}`);
        expect(thread.body.runs?.[0]?.status).toBe("completed");
      },
      { timeout: 60_000, interval: 25 },
    );
    const bobStepsDuring = (await stepsOf(bobAgents)) - bobStepsBefore;
    const aliceAgents = (await store.agents.listByThread(threadId)).map((agent) => agent.id);
    const aliceSteps = await stepsOf(aliceAgents);
    // Each of A's steps waits for at most the step running when it was queued (plus one B step that
    // was first of its tenant, FIFO among equals); behind one FIFO each would wait for the backlog.
    // Measured: 6 B steps during A's 4 (52 with the fair share turned off).
    expect(bobStepsDuring).toBeLessThanOrEqual(2 * aliceSteps + 1);
    expect(bobStepsDuring).toBeLessThan(backlog * aliceSteps);
    // B's runs are far from done: A did not merely wait for B to finish.
    const bobRuns = await Promise.all(bobThreads.map((id) => store.runs.active(id)));
    expect(bobRuns.filter((runs) => runs.length > 0)).toHaveLength(bobThreads.length);
  });

  it("answers B 429 rate_limited past its request burst, while A's requests pass", async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => call(bobToken, "GET", "/v1/threads?limit=1")),
    );
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.every((answer) => answer.body.error?.code === "rate_limited")).toBe(true);
    expect(Number(limited[0]?.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await call(instance.token, "GET", "/v1/threads?limit=1")).status).toBe(200);
  });

  it("answers B's 429s from memory: past its burst, its requests read no key from the store", async () => {
    const store = instance.runtime.deps.store;
    // A served request has just verified B's token against the store (its refusals are held, so a
    // client one request at a time is served at B's rate): the refusals that follow within half a
    // second are decided on that lookup; the exact expiry is tested in apps/server's auth test.
    await vi.waitFor(
      async () => expect((await call(bobToken, "GET", "/v1/threads?limit=1")).status).toBe(200),
      { ...EVENT_WAIT, interval: 0 },
    );
    const reads = vi.spyOn(store.apiKeys, "verify");
    try {
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => call(bobToken, "GET", "/v1/threads?limit=1")),
      );
      const limited = answers.filter((answer) => answer.status === 429);
      expect(limited.length).toBeGreaterThan(30);
      // Served requests verify their token; a refusal reads only when the lookup has just expired.
      expect(reads.mock.calls.length).toBeLessThan(limited.length / 4);
    } finally {
      reads.mockRestore();
    }
  });

  it("answers B's over-rate requests past the tarpit's bound too, all 429 with Retry-After, while A is served", async () => {
    // 100 at once: 64 held (each until B's bucket would have a token for it, at most a second), the
    // rest answered at once; the holds' lengths and the bound are tested in apps/server's auth test.
    const started = performance.now();
    const bob = Array.from({ length: TARPIT_MAX_HELD_PER_TENANT + 36 }, () =>
      call(bobToken, "GET", "/v1/threads?limit=1"),
    );
    // A is served while B's refusals are held.
    expect((await call(instance.token, "GET", "/v1/threads?limit=1")).status).toBe(200);
    const answers = await Promise.all(bob);
    const seconds = (performance.now() - started) / 1000;
    const limited = answers.filter((answer) => answer.status === 429);
    // B is served no more than its bucket refills while the 100 go through (a loaded machine takes
    // longer: 4 were served once in ~2 s), plus what refilled between the tests; the rest are refused.
    const served = answers.filter((answer) => answer.status === 200).length;
    expect(served + limited.length).toBe(answers.length);
    expect(served, `${served} served in ${seconds.toFixed(2)} s`).toBeLessThanOrEqual(
      2 + Math.floor(B_LIMITS.requestsPerSecond * seconds),
    );
    for (const answer of limited) {
      expect(answer.body.error?.code).toBe("rate_limited");
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
  });
});
