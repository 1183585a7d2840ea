import { afterEach, describe, expect, it } from "vitest";
import { readFacts, readThreadEvents } from "../e2e/support/distributed-events.ts";
import { type FaultCluster, startFaultCluster } from "./support/cluster.ts";
import { checkThreads, summaryLine, waitForRunsToEnd } from "./support/invariants.ts";

// 50 agents on two worker processes, in 8k windows so every one compacts. They all get the same task,
// so the sim model gives them the same tool call ids: a call id is unique only within one agent.

let cluster: FaultCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const AGENTS = 50;

describe("load: 50 agents with compaction on 2 worker processes, identical call ids", () => {
  it("finishes every run; no call of one thread is mistaken for another's", async () => {
    // One tenant runs all 50 at once: above the default fair-share limit of 32 runs under way.
    cluster = await startFaultCluster({
      workers: 2,
      workerConcurrency: 8,
      env: { LONGRUN_TENANT_MAX_RUNNING_RUNS: String(AGENTS) },
    });
    const client = cluster.client();
    const started = Date.now();
    const threads = await Promise.all(
      Array.from({ length: AGENTS }, () =>
        client.threads.create({
          model: "sim",
          simSteps: 16,
          maxInputTokens: 8_000,
          task: "Survey the warehouse service and report.",
        }),
      ),
    );
    const ids = threads.map((thread) => thread.id);
    await waitForRunsToEnd(client, ids, 600_000);
    const elapsed = Date.now() - started;
    const report = await checkThreads(client, ids, cluster.sim);

    let compacted = 0;
    let cancelled = 0;
    const callIds = new Map<string, number>();
    for (const thread of threads) {
      const events = await readThreadEvents(client, thread.id);
      if (events.some((event) => event.type === "compaction.completed")) compacted += 1;
      for (const fact of await readFacts(client, thread.agents[0]?.id ?? "")) {
        for (const call of fact.toolCalls ?? []) callIds.set(call.id, (callIds.get(call.id) ?? 0) + 1);
        if (fact.role === "tool" && fact.toolStatus === "cancelled") cancelled += 1;
      }
    }
    const shared = [...callIds.values()].filter((count) => count > 1).length;
    console.log(
      summaryLine(
        `${AGENTS} agents, 2 workers`,
        report,
        null,
        `(${compacted} compacted, ${shared} call ids shared across threads, ${cancelled} calls answered cancelled, ${(elapsed / 1000).toFixed(0)} s)`,
      ),
    );
    expect(report.problems).toEqual([]);
    expect(report.runsFinished).toBe(AGENTS);
    expect(compacted).toBe(AGENTS);
    // The threads really did share call ids, and none of those calls was taken for an interrupted one.
    expect(shared).toBeGreaterThan(0);
    expect(cancelled).toBe(0);
  }, 660_000);
});
