import type { LongrunEvent } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readThreadEvents } from "../e2e/support/distributed-events.ts";
import { type FaultCluster, startFaultCluster } from "./support/cluster.ts";
import { checkThreads, summaryLine, waitForRunsToEnd } from "./support/invariants.ts";

// Two `longrun serve` processes receive opposite decisions on the same call at the same moment.
// Exactly one decision may win, everywhere; the command runs only if "approve" won.

let cluster: FaultCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const TRIALS = 12;

describe("fault: two servers decide one approval at once", () => {
  it("exactly one decision wins each time, and the run follows that decision", async () => {
    cluster = await startFaultCluster({ servers: 2, workers: 1, workerConcurrency: 4 });
    const client = cluster.client();
    const threads = await Promise.all(
      Array.from({ length: TRIALS }, (_, index) =>
        client.threads.create({
          model: "sim",
          simScript: "approval",
          simSteps: 2,
          maxInputTokens: 32_000,
          task: `Check the repository state (${index}).`,
        }),
      ),
    );
    const requests = new Map<string, LongrunEvent>();
    await vi.waitFor(
      async () => {
        for (const thread of threads) {
          if (requests.has(thread.id)) continue;
          const events = await client.threads.events(thread.id, { since: 0, limit: 1_000 });
          const requested = events.find((event) => event.type === "approval.requested");
          if (requested) requests.set(thread.id, requested);
        }
        expect(requests.size).toBe(TRIALS);
      },
      { timeout: 60_000, interval: 100 },
    );
    const headers = { authorization: `Bearer ${cluster.token}`, "content-type": "application/json" };
    const decide = (server: number, agentId: string, callId: string, decision: "approve" | "deny") =>
      fetch(`${cluster?.servers[server]?.url}/v1/agents/${agentId}/approvals/${callId}`, {
        method: "POST",
        headers,
        body: JSON.stringify({ decision }),
      }).then((response) => ({ decision, status: response.status }));
    const winners = new Map<string, "approve" | "deny">();
    const statuses: number[][] = [];
    await Promise.all(
      threads.map(async (thread, index) => {
        const event = requests.get(thread.id);
        const callId = event?.type === "approval.requested" ? event.data.callId : "";
        const agentId = event?.agentId ?? "";
        // Alternate which server says what, so neither always goes first.
        const answers = await Promise.all([
          decide(index % 2, agentId, callId, "approve"),
          decide((index + 1) % 2, agentId, callId, "deny"),
        ]);
        statuses.push(answers.map((answer) => answer.status).sort());
        const won = answers.find((answer) => answer.status === 200);
        if (won) winners.set(thread.id, won.decision);
      }),
    );
    const ids = threads.map((thread) => thread.id);
    await waitForRunsToEnd(client, ids, 120_000);
    for (const thread of threads) {
      const events = await readThreadEvents(client, thread.id);
      const resolved = events.filter((event) => event.type === "approval.resolved");
      expect(resolved).toHaveLength(1);
      const decision = resolved[0]?.type === "approval.resolved" ? resolved[0].data.decision : undefined;
      expect(decision).toBe(winners.get(thread.id));
      // The call's result follows the winning decision: run once, or denied.
      const request = requests.get(thread.id);
      const callId = request?.type === "approval.requested" ? request.data.callId : "";
      const started = events.filter((event) => event.type === "tool.started" && event.data.callId === callId);
      const completed = events.find(
        (event) => event.type === "tool.completed" && event.data.callId === callId,
      );
      expect(started).toHaveLength(decision === "approve" ? 1 : 0);
      expect(completed?.type === "tool.completed" ? completed.data.status : null).toBe(
        decision === "approve" ? "ok" : "error",
      );
    }
    const report = await checkThreads(client, ids, cluster.sim);
    const approved = [...winners.values()].filter((decision) => decision === "approve").length;
    console.log(
      summaryLine(
        "two servers decide one approval",
        report,
        null,
        `(${TRIALS} trials: ${statuses.filter((pair) => pair.join() === "200,409").length} answered 200+409, approve won ${approved}, deny won ${TRIALS - approved})`,
      ),
    );
    expect(statuses).toEqual(Array.from({ length: TRIALS }, () => [200, 409]));
    expect(report.problems).toEqual([]);
    expect(report.runsFinished).toBe(report.runsTotal);
  }, 240_000);
});
