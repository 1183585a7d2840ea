import { join } from "node:path";
import { createClient, type LongrunClient } from "@longrun/client";
import type { LongrunEvent } from "@longrun/protocol";
import { createTempWorkspace, SAMPLE_PROJECT, type TempWorkspace } from "@longrun/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { type DistributedCluster, startDistributedCluster } from "./support/distributed-cluster.ts";
import {
  collectEvents,
  factProblems,
  readFacts,
  readThreadEvents,
  seqProblems,
} from "./support/distributed-events.ts";

// Separate OS processes: `longrun serve` + two `longrun worker` on real Redis and one libSQL file; the sim
// model runs in this process and is reached over HTTP (LONGRUN_SIM_URL).

let cluster: DistributedCluster | undefined;
let workspace: TempWorkspace | undefined;
const clients: LongrunClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await cluster?.close();
  cluster = undefined;
  await workspace?.cleanup();
  workspace = undefined;
});

function connect(target: DistributedCluster): LongrunClient {
  const client = createClient({
    baseUrl: target.url,
    token: target.token,
    WebSocket: WebSocket as never,
    reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
  });
  clients.push(client);
  return client;
}

/** Ids of agent and compaction jobs BullMQ recovered from a stall, read from its event stream in Redis. */
async function stalledJobs(target: DistributedCluster): Promise<string[]> {
  const entries = [
    ...(await target.redis.redis.xrange(`${target.redis.prefix}:agent:events`, "-", "+")),
    ...(await target.redis.redis.xrange(`${target.redis.prefix}:compaction:events`, "-", "+")),
  ];
  return entries.flatMap(([, fields]) => {
    const record = new Map<string, string>();
    for (let index = 0; index + 1 < fields.length; index += 2) record.set(fields[index]!, fields[index + 1]!);
    return record.get("event") === "stalled" ? [record.get("jobId") ?? "?"] : [];
  });
}

const bySeq = (events: LongrunEvent[]) => events.map((event) => event.seq);
const SUB_AGENTS = 3;

describe("distributed mode: one server and two workers as separate processes", () => {
  it("runs a team that compacts, survives a SIGKILLed worker, and streams every event exactly once", async () => {
    // The sample project in a folder inside the root: a root itself is never a thread's workspace.
    workspace = await createTempWorkspace(
      Object.fromEntries(
        Object.entries(SAMPLE_PROJECT).map(([path, content]) => [`project/${path}`, content]),
      ),
    );
    // Concurrency 1 per worker: with three sub-agents running, both workers are busy when one is killed.
    cluster = await startDistributedCluster({
      workers: 2,
      workerConcurrency: 1,
      sim: { delayMs: 15 },
      env: { LONGRUN_WORKSPACE_ROOTS: workspace.dir },
    });
    const api = connect(cluster);
    const thread = await api.threads.create({
      title: "distributed team",
      workspace: join(workspace.dir, "project"),
      model: "sim",
      simScript: "team",
      // Enough steps that each scout compacts at least twice (with background summaries, at 30 steps one
      // scout sometimes compacted only once).
      simSteps: 40,
      maxInputTokens: 8_000,
    });
    const all = collectEvents(api, { threadId: thread.id, since: 0 });
    const compactionOnly = collectEvents(connect(cluster), {
      threadId: thread.id,
      types: ["compaction.*"],
      since: 0,
    });
    const leaver = connect(cluster);
    const beforeLeaving = collectEvents(leaver, { threadId: thread.id, since: 0 });
    await Promise.all([all.handle.ready, compactionOnly.handle.ready, beforeLeaving.handle.ready]);

    const { runId } = await api.threads.sendMessage(thread.id, {
      content: "Survey the inventory project: sources, tests and docs. Report the main modules.",
    });

    // One client goes away mid-run and comes back later with `since`.
    await beforeLeaving.waitFor((event) => event.type === "agent.spawned");
    leaver.close();
    const leftAt = beforeLeaving.events.at(-1)?.seq ?? 0;

    // Kill one worker once the sub-agents are compacting, at a moment both workers hold an agent job
    // (concurrency 1 each): the victim dies mid-step.
    await all.waitFor(
      (event) => event.type === "compaction.completed" && event.agentId !== thread.agents[0]?.id,
    );
    const activeKey = `${cluster.redis.prefix}:agent:active`;
    await vi.waitFor(
      async () => {
        if ((await cluster!.redis.redis.llen(activeKey)) < 2) throw new Error("not both workers busy");
      },
      { timeout: 60_000, interval: 2 },
    );
    const victim = cluster.workers[0]!;
    await victim.kill("SIGKILL");
    expect(victim.child.signalCode).toBe("SIGKILL");
    const killedAtSeq = all.events.at(-1)?.seq ?? 0;

    const returner = collectEvents(connect(cluster), { threadId: thread.id, since: leftAt });
    const end = await all.waitFor(
      (event) =>
        event.runId === runId && ["run.completed", "run.failed", "run.cancelled"].includes(event.type),
      150_000,
    );
    expect(end.type, JSON.stringify(end.data)).toBe("run.completed");
    expect(end.seq).toBeGreaterThan(killedAtSeq);
    await returner.waitFor((event) => event.seq === end.seq);

    // The log: the thread's seq is gapless, and the live stream delivered exactly the log.
    const log = await readThreadEvents(api, thread.id);
    expect(seqProblems(bySeq(log))).toEqual([]);
    await all.waitFor((event) => event.seq === log.at(-1)?.seq);
    expect(bySeq(all.events)).toEqual(bySeq(log));

    // The compaction-only subscriber got exactly the compaction.* events, nothing else.
    const compactionLog = log.filter((event) => event.type.startsWith("compaction."));
    await compactionOnly.waitFor((event) => event.seq === compactionLog.at(-1)?.seq);
    expect(bySeq(compactionOnly.events)).toEqual(bySeq(compactionLog));

    // The client that left and resumed with `since` saw every event exactly once.
    const seen = [...bySeq(beforeLeaving.events), ...bySeq(returner.events)];
    expect(seen).toEqual(bySeq(log));

    // Every agent's facts are complete: no gap, no duplicate, every tool call answered exactly once.
    const detail = await api.threads.get(thread.id);
    for (const agent of detail.agents) {
      expect(["completed", "context_exhausted"], `${agent.name} ${agent.status}`).toContain(agent.status);
      const facts = await readFacts(api, agent.id);
      expect(factProblems(facts), agent.name).toEqual([]);
    }
    // The first spawn_agents call made a team of three, each of which finished and compacted at least twice.
    // (The sim model may have the root spawn a second team later: it reads its children's done markers in
    // the team report as its own progress. Such extra teams are checked for complete facts above.)
    const firstSpawn = detail.agents.find((agent) => agent.parentAgentId)?.spawnCallId;
    const team = detail.agents.filter((agent) => agent.spawnCallId === firstSpawn && firstSpawn);
    expect(team.map((agent) => agent.name).sort()).toEqual(["scout-docs", "scout-sources", "scout-tests"]);
    for (const member of team) {
      // A member that did not complete says why: its last events.
      const last = log
        .filter((event) => event.agentId === member.id)
        .slice(-4)
        .map((event) => `${event.type} ${JSON.stringify(event.data).slice(0, 400)}`);
      expect(member.status, `${member.name}: ${last.join(" | ")}`).toBe("completed");
      const done = log.filter(
        (event) => event.type === "compaction.completed" && event.agentId === member.id,
      );
      expect(done.length, member.name).toBeGreaterThanOrEqual(2);
    }
    for (const spawnCallId of new Set(detail.agents.map((agent) => agent.spawnCallId).filter(Boolean))) {
      expect(detail.agents.filter((agent) => agent.spawnCallId === spawnCallId)).toHaveLength(SUB_AGENTS);
    }
    // The kill hit a running job, and BullMQ handed it to the surviving worker.
    const stalled = await stalledJobs(cluster);
    expect(stalled.length).toBeGreaterThanOrEqual(1);
    expect(cluster.sim.log.entries.filter((entry) => entry.status !== 200)).toEqual([]);
    console.info(
      `distributed e2e: ${log.length} events, ${compactionLog.length} compaction events, ` +
        `${stalled.length} stalled job(s) recovered, ${cluster.sim.log.entries.length} model requests, ` +
        `${detail.agents.length} agents`,
    );
  }, 240_000);

  it("cancel from the API reaches the worker running the step (Redis control channel)", async () => {
    // The model answers after 60 s: only an abort from the control channel ends the step sooner.
    cluster = await startDistributedCluster({ workers: 1, sim: { delayMs: 60_000 } });
    const api = connect(cluster);
    const thread = await api.threads.create({ title: "cancel", model: "sim", simSteps: 20 });
    const events = collectEvents(api, { threadId: thread.id, since: 0 });
    await events.handle.ready;
    const { runId } = await api.threads.sendMessage(thread.id, { content: "Look at the project." });
    // The step took the agent and is now waiting on the model (its measurement is recorded with the
    // answer, which never comes).
    await events.waitFor(
      (event) => event.type === "agent.status" && event.runId === runId && event.data.status === "running",
    );
    await expect
      .poll(async () => (await api.ops.get()).queues.find((queue) => queue.name === "agent")?.active)
      .toBe(1);

    const cancelled = await api.runs.cancel(runId);
    expect(cancelled.status).toBe("cancelled");
    await events.waitFor((event) => event.type === "run.cancelled");
    // The worker dropped the model call and finished its job long before the model would have answered.
    await expect
      .poll(async () => (await api.ops.get()).queues.find((queue) => queue.name === "agent")?.active, {
        timeout: 10_000,
      })
      .toBe(0);
    const root = thread.agents[0]!;
    const facts = await readFacts(api, root.id);
    expect(facts.filter((fact) => fact.role === "assistant")).toEqual([]);
  });
});
