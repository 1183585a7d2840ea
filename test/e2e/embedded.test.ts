import type { LongrunEvent, StoredMessage } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  allEvents,
  type EmbeddedTestInstance,
  startEmbeddedForTest,
  waitForRun,
} from "./support/embedded-instance.ts";

/** Token deltas are published without being persisted: they have no place in the log comparison. */
const persisted = (event: LongrunEvent) => event.type !== "message.delta";

/** Facts of one agent are complete: seqs 0..n-1, unique ids, every tool call answered exactly once. */
function expectCompleteFacts(messages: StoredMessage[]): void {
  expect(messages.map((message) => message.seq)).toEqual(messages.map((_, index) => index));
  expect(new Set(messages.map((message) => message.id)).size).toBe(messages.length);
  const calls = messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id));
  const results = messages.filter((message) => message.role === "tool").map((message) => message.toolCallId);
  expect(new Set(calls).size).toBe(calls.length);
  expect([...results].sort()).toEqual([...calls].sort());
}

describe("embedded mode end to end (one process, SDK over real HTTP and WebSocket)", () => {
  let env: EmbeddedTestInstance;

  beforeAll(async () => {
    env = await startEmbeddedForTest();
  });
  afterAll(async () => {
    await env?.close();
  });

  it("runs a team of three sub-agents that each compact at least twice, streamed exactly once", async () => {
    const { client, instance } = env;
    const thread = await client.threads.create({
      title: "team e2e",
      model: "sim",
      maxInputTokens: 8000,
      simSteps: 30,
      simScript: "team",
    });

    // A second client that only wants compaction events of this thread, live from now on.
    const compactionOnly: LongrunEvent[] = [];
    const watcher = env.clientFor(instance.token);
    const watch = watcher.subscribe(
      { threadId: thread.id, types: ["compaction.*"] },
      { onEvent: (event) => compactionOnly.push(event) },
    );
    await watch.ready;

    // A third client that sees everything, disconnects mid-run and resumes with `since`.
    const received: LongrunEvent[] = [];
    const first = env.clientFor(instance.token);
    const firstSubscription = first.subscribe(
      { threadId: thread.id, since: 0 },
      { onEvent: (event) => received.push(event) },
    );
    await firstSubscription.ready;

    const started = Date.now();
    const { runId } = await client.threads.sendMessage(thread.id, {
      content: "Survey the warehouse service and report on its modules, tests and docs.",
    });

    await vi.waitFor(
      () =>
        expect(received.filter((event) => event.type === "compaction.completed").length).toBeGreaterThan(0),
      { timeout: 60_000, interval: 50 },
    );
    const lastSeen = firstSubscription.lastSeq(thread.id);
    first.close();
    // The run goes on while this client is away.
    await vi.waitFor(
      async () =>
        expect((await client.threads.events(thread.id, { since: lastSeen })).length).toBeGreaterThan(50),
      { timeout: 60_000, interval: 50 },
    );
    const second = env.clientFor(instance.token);
    const secondSubscription = second.subscribe(
      { threadId: thread.id, since: lastSeen },
      { onEvent: (event) => received.push(event) },
    );
    await secondSubscription.ready;

    const detail = await waitForRun(client, thread.id, runId, 150_000);
    const elapsed = Date.now() - started;
    expect(detail.runs.find((run) => run.id === runId)?.status).toBe("completed");

    const log = await allEvents(client, thread.id);
    // The thread's event seq is gapless from 1.
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1));
    const head = log.at(-1)?.seq ?? 0;
    await vi.waitFor(() => expect(secondSubscription.lastSeq(thread.id)).toBe(head), { timeout: 60_000 });
    await vi.waitFor(
      () => expect(compactionOnly.length).toBe(log.filter((e) => e.type.startsWith("compaction.")).length),
      { timeout: 60_000 },
    );

    // Disconnect + resume: every persisted event exactly once, in order, nothing missing.
    expect(received.filter(persisted).map((event) => event.seq)).toEqual(log.map((event) => event.seq));
    expect(received.filter(persisted)).toEqual(log);
    // The filtered client got exactly the compaction events of the log.
    expect(compactionOnly).toEqual(log.filter((event) => event.type.startsWith("compaction.")));

    // The tree: the root and its three sub-agents.
    const root = detail.agents.find((agent) => agent.parentAgentId === null);
    expect(root).toBeDefined();
    const children = detail.agents.filter((agent) => agent.parentAgentId === root?.id);
    expect(detail.agents).toHaveLength(4);
    expect(children.map((child) => child.name).sort()).toEqual([
      "scout-docs",
      "scout-sources",
      "scout-tests",
    ]);
    expect(children.find((child) => child.name === "scout-docs")?.inherit).toBe("fork");
    for (const agent of detail.agents) expect(agent.status).toBe("completed");

    const compactionsPerAgent = new Map<string, number>();
    for (const event of log) {
      if (event.type === "compaction.completed" && event.agentId)
        compactionsPerAgent.set(event.agentId, (compactionsPerAgent.get(event.agentId) ?? 0) + 1);
    }
    for (const child of children) expect(compactionsPerAgent.get(child.id) ?? 0).toBeGreaterThanOrEqual(2);

    for (const agent of detail.agents) {
      const page = await client.agents.messages(agent.id, { limit: 5_000 });
      expect(page.nextAfterSeq).toBeNull();
      expectCompleteFacts(page.messages);
    }
    // The parent got its team's reports as the one result of its spawn_agents call.
    const rootFacts = (await client.agents.messages(root?.id ?? "", { limit: 5_000 })).messages;
    const spawnResult = rootFacts.find(
      (message) => message.role === "tool" && message.name === "spawn_agents",
    );
    expect(String(spawnResult?.content)).toContain("## scout-sources (completed)");
    // Each child's live announcement names that call, so a live view links the reports to it.
    const announcedCalls = log.flatMap((event) =>
      event.type === "agent.spawned" && event.agentId !== root?.id ? [event.data.spawnCallId] : [],
    );
    expect(spawnResult?.toolCallId).toMatch(/./);
    expect(announcedCalls).toEqual(children.map(() => spawnResult?.toolCallId));

    // Metrics after the run.
    const metrics = await (
      await fetch(`${instance.url}/metrics`, { headers: { authorization: `Bearer ${instance.token}` } })
    ).text();
    expect(metrics).toMatch(/longrun_runs_total\{kind="message",tenant="default"\} 1/);
    expect(metrics).toMatch(/longrun_run_outcomes_total\{outcome="completed"\} 1/);
    expect(Number(metrics.match(/longrun_steps_total (\d+)/)?.[1])).toBeGreaterThan(50);
    const auto = Number(
      metrics.match(/longrun_compactions_total\{trigger="auto",outcome="completed"\} (\d+)/)?.[1],
    );
    expect(auto).toBe(log.filter((event) => event.type === "compaction.completed").length);
    expect(metrics).toMatch(/longrun_tokens_saved_total\{stage="summary"\} [1-9]/);
    expect(metrics).toMatch(/longrun_tokens_saved_total\{stage="collapse"\}/);
    expect(metrics).toMatch(/longrun_queue_depth\{queue="[^"]+",state="waiting"\} 0/);
    expect(metrics).toMatch(/longrun_websocket_clients/);
    console.log(
      `[embedded e2e] run ${elapsed} ms, ${log.length} events, compactions per agent: ${[
        ...compactionsPerAgent.values(),
      ].join(", ")}`,
    );
  }, 200_000);
});
