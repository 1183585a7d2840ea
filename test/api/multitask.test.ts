import type { LongrunClient } from "@longrun/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedTestInstance, startEmbeddedForTest } from "../e2e/support/embedded-instance.ts";
import { waitForRunStatus } from "./support/run-status.ts";

// A message while a run is active, per strategy. The active run is parked in a tool call (the sim's
// approval script asks to run `ls -la` at its first step and waits for the decision).

let longrun: EmbeddedTestInstance;
let client: LongrunClient;

beforeAll(async () => {
  longrun = await startEmbeddedForTest({ LONGRUN_LOG_LEVEL: "warn" });
  client = longrun.client;
});

afterAll(() => longrun?.close());

const runStatus = (threadId: string, runId: string, expected: string) =>
  waitForRunStatus(client, threadId, runId, expected);

/** A thread whose run is parked in a tool call waiting for approval; its root's facts so far. */
async function parkedThread() {
  const thread = await client.threads.create({
    model: "sim",
    simSteps: 2,
    simScript: "approval",
    task: "Look",
  });
  const runId = thread.runs[0]!.id;
  await runStatus(thread.id, runId, "waiting");
  const rootId = thread.agents[0]!.id;
  const facts = (await client.agents.messages(rootId)).messages;
  expect(facts.at(-1)?.toolCalls?.[0]?.function.name).toBe("run_command");
  return { thread, runId, rootId, facts };
}

describe("a message while a run is active", () => {
  it("reject: 409, nothing admitted, the run goes on waiting", async () => {
    const parked = await parkedThread();
    await expect(
      client.threads.sendMessage(parked.thread.id, { content: "Now", multitask: "reject" }),
    ).rejects.toMatchObject({ status: 409, code: "conflict" });
    const detail = await client.threads.get(parked.thread.id);
    expect(detail.runs.map((run) => [run.id, run.status])).toEqual([[parked.runId, "waiting"]]);
    await client.runs.cancel(parked.runId);
  });

  it("enqueue (the default): waits behind the active run", async () => {
    const parked = await parkedThread();
    const queued = await client.threads.sendMessage(parked.thread.id, { content: "Then this" });
    expect(queued).toMatchObject({ queued: true, position: 1, threadId: parked.thread.id });
    expect(
      (await client.threads.get(parked.thread.id)).runs.find((run) => run.id === parked.runId)?.status,
    ).toBe("waiting");
    await client.runs.cancel(parked.runId);
    await runStatus(parked.thread.id, queued.runId, "completed");
  });

  it("interrupt: the active run is cancelled, the message runs, its pending call answered cancelled", async () => {
    const parked = await parkedThread();
    const posted = await client.threads.sendMessage(parked.thread.id, {
      content: "Stop that",
      multitask: "interrupt",
    });
    await runStatus(parked.thread.id, parked.runId, "cancelled");
    await runStatus(parked.thread.id, posted.runId, "completed");
    const context = await client.agents.context(parked.rootId);
    const callId = parked.facts.at(-1)!.toolCalls![0]!.id;
    const answer = context.messages.find(
      (message) => message.role === "tool" && message.tool_call_id === callId,
    );
    expect(String(answer?.content)).toMatch(/cancel/i);
    // Every fact of the interrupted run is still in the log.
    const after = (await client.agents.messages(parked.rootId)).messages;
    expect(after.slice(0, parked.facts.length)).toEqual(parked.facts);
  });

  it("rollback: the run's facts stay in the source, the message continues a fork from before the run", async () => {
    const parked = await parkedThread();
    const posted = await client.threads.sendMessage(parked.thread.id, {
      content: "Start over",
      multitask: "rollback",
    });
    expect(posted.threadId).not.toBe(parked.thread.id);
    // The fork's run starts over from its first step: the approval script asks again, in the fork.
    const fork = await runStatus(posted.threadId!, posted.runId, "waiting");
    const source = await runStatus(parked.thread.id, parked.runId, "cancelled");
    expect(source.rewoundToThreadId).toBe(fork.id);
    expect(fork.forkedFromThreadId).toBe(parked.thread.id);
    // The fork starts before the run's input: at the system prompt, the run's task and call left out.
    const [system] = parked.facts;
    expect(fork.agents[0]).toMatchObject({ forkMessageId: system!.id, forkSourceAgentId: parked.rootId });
    const forkContext = await client.agents.context(fork.agents[0]!.id);
    expect(forkContext.messages.map((message) => message.content)).not.toContain("Look");
    // Never deleted: the source keeps every fact of the rolled-back run.
    const after = (await client.agents.messages(parked.rootId)).messages;
    expect(after.slice(0, parked.facts.length)).toEqual(parked.facts);
    await client.runs.cancel(posted.runId);
  });
});
