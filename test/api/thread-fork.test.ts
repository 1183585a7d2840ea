import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { createClient, LongrunApiError, type LongrunClient } from "@longrun/client";
import type { StoredMessage, ThreadDetail } from "@longrun/protocol";
import { type SimLogEntry, type SimModelServer, startSimModel } from "@longrun/sim-model";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// Fork and rewind over HTTP: embedded longrun on a real libSQL file, the sim model as its upstream over
// real HTTP. Every request the sim answers is kept, so a fork's first request is compared with the
// source's request at the fork point, byte for byte (JSON as received).

let sim: SimModelServer;
let dataDir: string;
let instance: EmbeddedInstance;
let client: LongrunClient;

const config = () =>
  loadConfig({
    PORT: "0",
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_SIM_URL: sim.url,
    LONGRUN_TIME_ZONE: "UTC",
    LONGRUN_LOG_LEVEL: "warn",
  });

async function boot(): Promise<void> {
  instance = await startEmbedded(config());
  client = createClient({ baseUrl: instance.url, token: instance.token });
}

/** A token of another tenant. */
async function strangerToken(): Promise<string> {
  const store = await openLog(config());
  try {
    return (await store.apiKeys.create("stranger")).token;
  } finally {
    await store.close();
  }
}

beforeAll(async () => {
  sim = await startSimModel({ logLimit: 10_000 });
  dataDir = await mkdtemp(join(tmpdir(), "longrun-fork-"));
  await boot();
});

afterAll(async () => {
  await instance?.close();
  await sim?.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface ChatBody {
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  [key: string]: unknown;
}

/** The sim's log position now: requests answered later have a higher seq. */
const mark = () => sim.log.entries.at(-1)?.seq ?? 0;

/** The agent requests (summaries excluded) the sim answered after `since`, in order. */
function agentRequests(since: number): ChatBody[] {
  return sim.log.entries
    .filter((entry: SimLogEntry) => entry.seq > since && !entry.summary && entry.status === 200)
    .map((entry) => entry.body as ChatBody);
}

async function finished(threadId: string, runId: string): Promise<ThreadDetail> {
  await vi.waitFor(
    async () => {
      const detail = await client.threads.get(threadId);
      expect(detail.runs.find((run) => run.id === runId)?.status).toBe("completed");
    },
    { timeout: 120_000, interval: 50 },
  );
  return client.threads.get(threadId);
}

const rootOf = (detail: ThreadDetail) => detail.agents.find((agent) => !agent.parentAgentId)!;

async function factsOf(agentId: string): Promise<StoredMessage[]> {
  return (await client.agents.messages(agentId, { afterSeq: -1, limit: 1000 })).messages;
}

/** A thread run to the end of its task; its root's facts and the agent requests it made, in order. */
async function sourceThread(options: { simSteps: number; maxInputTokens?: number; simScript?: string }) {
  const since = mark();
  const created = await client.threads.create({
    model: "sim",
    simSteps: options.simSteps,
    ...(options.maxInputTokens ? { maxInputTokens: options.maxInputTokens } : {}),
    ...(options.simScript ? { simScript: options.simScript } : {}),
    task: "Explore this project and report",
  });
  const detail = await finished(created.id, created.runs[0]!.id);
  const root = rootOf(detail);
  return { detail, root, facts: await factsOf(root.id), requests: agentRequests(since) };
}

/**
 * The source's request that produced the assistant fact right after `at` (request k made assistant
 * fact k: one root, no retries).
 */
function requestAfter(facts: StoredMessage[], requests: ChatBody[], at: StoredMessage): ChatBody {
  const next = facts.find((message) => message.seq === at.seq + 1);
  expect(next?.role).toBe("assistant");
  const index = facts.filter((message) => message.role === "assistant" && message.seq < at.seq + 1).length;
  return requests[index]!;
}

/** Posts `content` to a fork and returns the first agent request it made. */
async function firstRequestOf(threadId: string, content: string): Promise<ChatBody> {
  const since = mark();
  const posted = await client.threads.sendMessage(threadId, { content });
  await finished(posted.threadId ?? threadId, posted.runId);
  return agentRequests(since)[0]!;
}

/** Everything but `messages`, and the messages, as the bytes the sim received. */
function expectSameRequest(actual: ChatBody, expected: ChatBody, messages: unknown[]): void {
  const { messages: _a, ...actualRest } = actual;
  const { messages: _e, ...expectedRest } = expected;
  expect(JSON.stringify(actualRest)).toBe(JSON.stringify(expectedRest));
  expect(JSON.stringify(actual.messages)).toBe(JSON.stringify(messages));
}

/** The source as a reader sees it: facts, events count, context projection. */
async function sourceView(detail: ThreadDetail) {
  const root = rootOf(detail);
  const again = await client.threads.get(detail.id);
  return {
    facts: await factsOf(root.id),
    context: await client.agents.context(root.id),
    runs: again.runs.map((run) => [run.id, run.status]),
    rewoundTo: again.rewoundToThreadId,
  };
}

describe("forking a thread", () => {
  it("at a message: the fork's first request is the source's request at that point plus the new message", async () => {
    const source = await sourceThread({ simSteps: 6 });
    const before = await sourceView(source.detail);
    // A tool result in the middle of the run: the next fact is the assistant's answer to it.
    const at = source.facts.filter((message) => message.role === "tool")[2]!;
    const expected = requestAfter(source.facts, source.requests, at);

    const fork = await client.threads.fork(source.detail.id, { atMessageId: at.id, title: "second try" });
    expect(fork).toMatchObject({
      title: "second try",
      tenantId: source.detail.tenantId,
      forkedFromThreadId: source.detail.id,
      rewoundToThreadId: null,
    });
    // Its own workspace folder, holding the source's workspace as it was at the point (fork-workspace.test.ts).
    expect(fork.workspaceDir).toBe(join(dataDir, "workspaces", fork.id));
    expect(rootOf(fork)).toMatchObject({
      inherit: "fork",
      forkMessageId: at.id,
      forkSourceAgentId: source.root.id,
    });
    // Referenced, not copied: the fork's root has no facts of its own yet.
    expect(await factsOf(rootOf(fork).id)).toEqual([]);

    const request = await firstRequestOf(fork.id, "Try another way");
    expectSameRequest(request, expected, [
      ...expected.messages,
      { role: "user", content: "Try another way" },
    ]);
    expect(await sourceView(source.detail)).toEqual(before);
  });

  it("at a compaction: the fork starts with that compaction in force, as the source's next request did", async () => {
    const source = await sourceThread({ simSteps: 30, maxInputTokens: 8192 });
    const compactions = await client.agents.compactions(source.root.id);
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    const compaction = compactions[1]!;
    // The anchor is the last fact appended before the compaction was recorded.
    const at = source.facts.filter((message) => message.createdAt <= compaction.createdAt).at(-1)!;
    const expected = requestAfter(source.facts, source.requests, at);
    expect(expected.messages.map((message) => message.content)).toContain(compaction.summaryMessage.content);
    const before = await sourceView(source.detail);

    const fork = await client.threads.fork(source.detail.id, { atCompactionId: compaction.id });
    expect(rootOf(fork)).toMatchObject({ forkMessageId: at.id, forkCompactionId: compaction.id });
    expect(fork.title).toBe(`${source.detail.title} (fork)`);
    const request = await firstRequestOf(fork.id, "Summarize what you found");
    expectSameRequest(request, expected, [
      ...expected.messages,
      { role: "user", content: "Summarize what you found" },
    ]);
    // The same point named by its message picks the same compaction.
    const byMessage = await client.threads.fork(source.detail.id, { atMessageId: at.id });
    expect(rootOf(byMessage).forkCompactionId).toBe(compaction.id);
    expect(await sourceView(source.detail)).toEqual(before);
  });

  it("inside an active tool loop: the pending call is answered cancelled, its approval stays in the source", async () => {
    const since = mark();
    const created = await client.threads.create({
      model: "sim",
      simSteps: 3,
      simScript: "approval",
      task: "Look around",
    });
    const root = rootOf(created);
    const requested = await vi.waitFor(
      async () => {
        const approvals = await client.approvals.pending();
        const mine = approvals.find((approval) => approval.agentId === root.id);
        expect(mine).toBeDefined();
        return mine!;
      },
      { timeout: 60_000, interval: 50 },
    );
    const facts = await factsOf(root.id);
    const call = facts.at(-1)!;
    expect(call.toolCalls?.[0]?.id).toBe(requested.callId);
    const before = await sourceView(await client.threads.get(created.id));

    const fork = await client.threads.fork(created.id, { atMessageId: call.id });
    // The fork's inbox is empty: undecided approvals are not carried.
    expect((await client.approvals.pending()).filter((approval) => approval.threadId === fork.id)).toEqual(
      [],
    );
    expect((await client.threads.snapshot(fork.id)).approvals).toEqual([]);
    const forkSince = mark();
    const request = await firstRequestOf(fork.id, "Skip the command");
    // The command never ran for the fork: no tool.started event for it, and the sim saw a cancelled result.
    const started = (await client.threads.events(fork.id, { since: 0 })).filter(
      (event) => event.type === "tool.started",
    );
    expect(started.length).toBeGreaterThan(0);
    expect(started.filter((event) => event.data.callId === requested.callId)).toEqual([]);
    expect(agentRequests(forkSince)[0]).toEqual(request);
    expect(await sourceView(await client.threads.get(created.id))).toEqual(before);

    // The source still waits for its decision; approved, it runs the call and goes on.
    await client.approvals.resolve(root.id, requested.callId, { decision: "approve" });
    await finished(created.id, created.runs[0]!.id);
    const sourceFacts = await factsOf(root.id);
    const sourceRequests = agentRequests(since).filter((body) => body.messages[1]?.content === "Look around");
    const afterCall = sourceRequests[1]!;
    const callIndex = afterCall.messages.findIndex((message) => message.tool_calls !== undefined);
    const cancelled = request.messages[callIndex + 1]!;
    expect(cancelled).toMatchObject({ role: "tool", tool_call_id: requested.callId });
    expect(String(cancelled.content)).toMatch(/cancel/i);
    expectSameRequest(request, afterCall, [
      ...afterCall.messages.slice(0, callIndex + 1),
      cancelled,
      { role: "user", content: "Skip the command" },
    ]);
    expect(sourceFacts.find((message) => message.toolCallId === requested.callId)?.toolStatus).not.toBe(
      "cancelled",
    );
  });

  it("of a fork: a second fork rebuilds the first fork's prefix and its own facts", async () => {
    const source = await sourceThread({ simSteps: 4 });
    const at = source.facts.filter((message) => message.role === "tool")[1]!;
    const first = await client.threads.fork(source.detail.id, { atMessageId: at.id });
    const since = mark();
    const posted = await client.threads.sendMessage(first.id, { content: "Go on from here" });
    await finished(first.id, posted.runId);
    const firstFacts = await factsOf(rootOf(first).id);
    const firstRequests = agentRequests(since);
    // The fork's own facts: the user message, then the agent's work.
    expect(firstFacts[0]).toMatchObject({ role: "user", content: "Go on from here" });
    const at2 = firstFacts.filter((message) => message.role === "tool")[0]!;
    const expected = requestAfter(firstFacts, firstRequests, at2);

    const second = await client.threads.fork(first.id, { atMessageId: at2.id });
    expect(second.forkedFromThreadId).toBe(first.id);
    const request = await firstRequestOf(second.id, "And once more");
    expectSameRequest(request, expected, [...expected.messages, { role: "user", content: "And once more" }]);
  });

  it("across a server restart: the fork is rebuilt from the log by id", async () => {
    const source = await sourceThread({ simSteps: 5 });
    const at = source.facts.filter((message) => message.role === "tool")[3]!;
    const expected = requestAfter(source.facts, source.requests, at);
    const fork = await client.threads.fork(source.detail.id, { atMessageId: at.id });
    const before = await sourceView(source.detail);
    await instance.close();
    await boot();
    const request = await firstRequestOf(fork.id, "After the restart");
    expectSameRequest(request, expected, [
      ...expected.messages,
      { role: "user", content: "After the restart" },
    ]);
    expect(await sourceView(source.detail)).toEqual(before);
  });
});

describe("rewinding a thread", () => {
  it("points the source to a fork: messages posted to the source continue there", async () => {
    const source = await sourceThread({ simSteps: 3 });
    const at = source.facts.filter((message) => message.role === "tool")[0]!;
    const expected = requestAfter(source.facts, source.requests, at);
    const facts = await factsOf(source.root.id);

    const fork = await client.threads.rewind(source.detail.id, { atMessageId: at.id });
    expect((await client.threads.get(source.detail.id)).rewoundToThreadId).toBe(fork.id);
    const since = mark();
    const posted = await client.threads.sendMessage(source.detail.id, { content: "Redo it" });
    expect(posted.threadId).toBe(fork.id);
    await finished(fork.id, posted.runId);
    expectSameRequest(agentRequests(since)[0]!, expected, [
      ...expected.messages,
      { role: "user", content: "Redo it" },
    ]);
    // Rewound, never rewritten: the source's facts are all still there, and it got no run.
    expect(await factsOf(source.root.id)).toEqual(facts);
    expect((await client.threads.get(source.detail.id)).runs).toHaveLength(1);
  });
});

describe("refused forks", () => {
  it("answers 400 for a bad point, 404 for another tenant's thread", async () => {
    const source = await sourceThread({ simSteps: 1 });
    const other = await sourceThread({ simSteps: 1 });
    const refusal = (promise: Promise<unknown>) =>
      promise.then(
        () => {
          throw new Error("accepted");
        },
        (error: unknown) => {
          expect(error).toBeInstanceOf(LongrunApiError);
          const apiError = error as LongrunApiError;
          return { status: apiError.status, code: apiError.code, message: apiError.message };
        },
      );
    const id = source.detail.id;
    expect(await refusal(client.threads.fork(id, {} as never))).toMatchObject({
      status: 400,
      code: "bad_request",
    });
    expect(
      await refusal(
        client.threads.fork(id, { atMessageId: source.facts[1]!.id, atCompactionId: "x" } as never),
      ),
    ).toMatchObject({ status: 400 });
    expect(await refusal(client.threads.fork(id, { atMessageId: "no-such-message" }))).toMatchObject({
      status: 400,
      message: expect.stringContaining("not a message of this thread"),
    });
    // A message of another thread is not a point of this one.
    expect(await refusal(client.threads.fork(id, { atMessageId: other.facts[1]!.id }))).toMatchObject({
      status: 400,
    });
    expect(await refusal(client.threads.rewind(id, { atCompactionId: "no-such-compaction" }))).toMatchObject({
      status: 400,
      message: expect.stringContaining("not a compaction of this thread"),
    });
    expect(await refusal(client.threads.fork("no-such-thread", { atMessageId: "m" }))).toMatchObject({
      status: 404,
    });
    const stranger = createClient({ baseUrl: instance.url, token: await strangerToken() });
    expect(await refusal(stranger.threads.fork(id, { atMessageId: source.facts[1]!.id }))).toMatchObject({
      status: 404,
      code: "not_found",
    });
    expect((await client.threads.get(id)).rewoundToThreadId).toBeNull();
  });
});
