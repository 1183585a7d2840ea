import type { LongrunClient } from "@longrun/client";
import type { Multitask, StoredMessage } from "@longrun/protocol";
import { isSummaryRequest, type SimModelServer, startSimModel } from "@longrun/sim-model";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type EmbeddedTestInstance, startEmbeddedForTest } from "../e2e/support/embedded-instance.ts";
import { type HeldRequest, type HeldUpstream, startHeldUpstream } from "../e2e/support/held-upstream.ts";
import { waitForRunStatus } from "./support/run-status.ts";

// A message while a run is active, with the run caught inside a model call or inside a compaction's
// summary call: the sim sits behind a gate that holds the request until the test lets it through.
// (multitask.test.ts covers a run parked in a tool call.)

let sim: SimModelServer;
let gate: HeldUpstream;
let longrun: EmbeddedTestInstance;
let client: LongrunClient;

beforeAll(async () => {
  sim = await startSimModel({ logLimit: 500 });
  gate = await startHeldUpstream(sim.url);
  longrun = await startEmbeddedForTest({
    LONGRUN_LOG_LEVEL: "warn",
    // The sim reached over HTTP, through the gate (its origin: LONGRUN_SIM_URL takes no /v1).
    LONGRUN_SIM_URL: gate.baseURL.replace(/\/v1$/, ""),
  });
  client = longrun.client;
});

afterAll(async () => {
  await longrun?.close();
  await gate?.close();
  await sim?.close();
});

const runStatus = (threadId: string, runId: string, expected: string) =>
  waitForRunStatus(client, threadId, runId, expected);

const isStepCall = (body: Record<string, unknown>) => !isSummaryRequest(body as never);
const isSummaryCall = (body: Record<string, unknown>) => isSummaryRequest(body as never);

type Place = "model call" | "compaction";

/** A thread whose run is held inside a model call (its first step) or a compaction's summary call. */
async function heldThread(place: Place) {
  gate.hold(place === "model call" ? isStepCall : isSummaryCall);
  const thread = await client.threads.create({
    model: "sim",
    simScript: "writer",
    // Enough steps at 8k for a compaction (the writer's files are ~1.5k tokens each), few enough to end soon.
    simSteps: place === "model call" ? 3 : 14,
    task: "Write the parts",
    // A small window and no background summary: the compaction makes its summary call itself.
    ...(place === "compaction" ? { maxInputTokens: 8_000, profile: { backgroundRatio: 0 } } : {}),
  });
  const held = await gate.nextHeld();
  const runId = thread.runs[0]!.id;
  const rootId = thread.agents[0]!.id;
  if (place === "compaction") {
    await vi.waitFor(
      async () => expect((await client.threads.get(thread.id)).agents[0]?.status).toBe("compacting"),
      { timeout: 30_000, interval: 25 },
    );
  }
  const facts = (await client.agents.messages(rootId)).messages;
  return { thread, runId, rootId, held, facts };
}

/** Lets the held call, any other held one (a fork's first call) and every later one through. */
function letThrough(held: HeldRequest) {
  held.release();
  gate.releaseAll();
}

async function post(threadId: string, content: string, multitask: Multitask) {
  return client.threads.sendMessage(threadId, { content, multitask });
}

const assistants = (messages: readonly StoredMessage[]) =>
  messages.filter((message) => message.role === "assistant");

describe.each<Place>(["model call", "compaction"])("a message while the run is in a %s", (place) => {
  it("reject: 409, and the held call goes on as if nothing was asked", async () => {
    const caught = await heldThread(place);
    await expect(post(caught.thread.id, "Now", "reject")).rejects.toMatchObject({ status: 409 });
    const detail = await client.threads.get(caught.thread.id);
    expect(detail.runs.map((run) => [run.id, run.status])).toEqual([[caught.runId, "running"]]);
    letThrough(caught.held);
    await runStatus(caught.thread.id, caught.runId, "completed");
  });

  it("enqueue: waits behind the run, which keeps going after the held call", async () => {
    const caught = await heldThread(place);
    const queued = await post(caught.thread.id, "Then this", "enqueue");
    expect(queued).toMatchObject({ queued: true, position: 1 });
    letThrough(caught.held);
    // The run was not stopped: it takes its further steps to the end, then the message runs.
    await runStatus(caught.thread.id, caught.runId, "completed");
    const facts = (await client.agents.messages(caught.rootId)).messages;
    expect(assistants(facts).length).toBeGreaterThan(assistants(caught.facts).length + 1);
    await runStatus(caught.thread.id, queued.runId, "completed");
  });

  it("interrupt: the held call and its step finish, the run stops before its next step, the message runs", async () => {
    const caught = await heldThread(place);
    const posted = await post(caught.thread.id, "Stop after this", "interrupt");
    expect(posted).toMatchObject({ queued: true, position: 1 });
    // Asked, not yet done: the run is still in its call.
    const asked = await client.threads.get(caught.thread.id);
    const run = asked.runs.find((candidate) => candidate.id === caught.runId);
    expect(run?.status).toBe("running");
    expect(run?.interruptRequestedAt).toEqual(expect.any(Number));
    const said = await client.threads.events(caught.thread.id);
    expect(
      said.some((event) => event.type === "run.interrupt_requested" && event.runId === caught.runId),
    ).toBe(true);

    letThrough(caught.held);
    await runStatus(caught.thread.id, caught.runId, "cancelled");
    await runStatus(caught.thread.id, posted.runId, "completed");
    const facts = (await client.agents.messages(caught.rootId)).messages;
    const at = facts.findIndex((message) => message.role === "user" && message.content === "Stop after this");
    expect(at).toBeGreaterThan(0);
    const before = facts.slice(0, at);
    // Nothing the run wrote before the interrupt is lost.
    expect(before.slice(0, caught.facts.length)).toEqual(caught.facts);
    if (place === "model call") {
      // The held model call's answer is in the log, its tool calls ran to their end (none cancelled),
      // and no further step of the interrupted run came after it.
      expect(assistants(before).length).toBe(assistants(caught.facts).length + 1);
      const step = before.slice(caught.facts.length);
      const calls = step.flatMap((message) => message.toolCalls ?? []);
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        const result = step.find((message) => message.role === "tool" && message.toolCallId === call.id);
        expect(String(result?.content)).not.toMatch(/cancel/i);
      }
    } else {
      // The compaction completed (the summary call was let through) and no step followed it.
      expect((await client.agents.compactions(caught.rootId)).length).toBeGreaterThan(0);
      expect(assistants(before).length).toBe(assistants(caught.facts).length);
    }
  });

  it("rollback: the run is cancelled at once, its facts stay in the source, the message continues a fork", async () => {
    const caught = await heldThread(place);
    const posted = await post(caught.thread.id, "Start over", "rollback");
    expect(posted.threadId).not.toBe(caught.thread.id);
    // Cancelled while its call is still held: rollback does not wait for the step boundary.
    await runStatus(caught.thread.id, caught.runId, "cancelled");
    letThrough(caught.held);
    const after = (await client.agents.messages(caught.rootId)).messages;
    expect(after.slice(0, caught.facts.length)).toEqual(caught.facts);
    const fork = await client.threads.get(posted.threadId!);
    expect(fork.forkedFromThreadId).toBe(caught.thread.id);
    await client.runs.cancel(posted.runId).catch(() => undefined);
  });
});

describe("/compact while the run is in a model call", () => {
  it("with interrupt, the compaction runs at the step boundary instead of after the whole run", async () => {
    const caught = await heldThread("model call");
    const posted = await post(caught.thread.id, "/compact", "interrupt");
    expect(posted).toMatchObject({ queued: true, position: 1 });
    letThrough(caught.held);
    await runStatus(caught.thread.id, caught.runId, "cancelled");
    const detail = await runStatus(caught.thread.id, posted.runId, "completed");
    expect(detail.runs.find((run) => run.id === posted.runId)?.kind).toBe("compact");
    // One step of the interrupted run (the held call), then the compaction: not its three steps.
    const facts = (await client.agents.messages(caught.rootId)).messages;
    expect(assistants(facts).length).toBe(assistants(caught.facts).length + 1);
    const interrupted = detail.runs.find((run) => run.id === caught.runId);
    const compact = detail.runs.find((run) => run.id === posted.runId);
    expect(compact?.startedAt).toBeGreaterThanOrEqual(interrupted?.finishedAt ?? Number.POSITIVE_INFINITY);
  });
});
