import type { LongrunClient } from "@longrun/client";
import type { LongrunEvent, ThreadDetail } from "@longrun/protocol";
import type { SimModelServer } from "@longrun/sim-model";
import { vi } from "vitest";
import {
  factProblems,
  readFacts,
  readThreadEvents,
  seqProblems,
} from "../../e2e/support/distributed-events.ts";

/** What a fault scenario found after the fault: the numbers of its one-line summary and every problem. */
export interface FaultReport {
  runsTotal: number;
  runsFinished: number;
  /** Runs the reconciler marked stuck, each with its reason. */
  stuck: string[];
  /** Tool calls started more than once, decisions taken more than once. */
  doubled: string[];
  /** Facts or events missing (seq gaps), decisions requested but never taken in a finished run. */
  lost: string[];
  requestsAccepted: number;
  requestsTotal: number;
  problems: string[];
}

const FINISHED = new Set(["completed", "failed", "cancelled"]);

/** Reads every thread back and checks the durable-run invariants on it. */
export async function checkThreads(
  client: LongrunClient,
  threadIds: string[],
  sim: SimModelServer,
): Promise<FaultReport> {
  const report: FaultReport = {
    runsTotal: 0,
    runsFinished: 0,
    stuck: [],
    doubled: [],
    lost: [],
    requestsAccepted: 0,
    requestsTotal: 0,
    problems: [],
  };
  for (const threadId of threadIds) {
    const detail: ThreadDetail = await client.threads.get(threadId);
    for (const run of detail.runs) {
      report.runsTotal += 1;
      if (FINISHED.has(run.status)) report.runsFinished += 1;
      else if (run.status === "stuck") report.stuck.push(`${run.id}: ${run.error?.message ?? "no reason"}`);
      else report.problems.push(`run ${run.id} of thread ${threadId} is still ${run.status}`);
    }
    const events = await readThreadEvents(client, threadId);
    for (const problem of seqProblems(events.map((event) => event.seq))) {
      report.lost.push(`thread ${threadId} events: ${problem}`);
    }
    for (const agent of detail.agents) {
      for (const problem of factProblems(await readFacts(client, agent.id))) {
        report.lost.push(`agent ${agent.id} facts: ${problem}`);
      }
    }
    countTwice(events, "tool.started", report.doubled, "tool run started");
    countTwice(events, "approval.requested", report.doubled, "approval requested");
    countTwice(events, "approval.resolved", report.doubled, "decision taken");
    const resolved = new Set(keysOf(events, "approval.resolved"));
    const runEnded = new Map(detail.runs.map((run) => [run.id, run.status === "completed"]));
    for (const event of events) {
      if (event.type !== "approval.requested") continue;
      const key = `${event.agentId}:${event.data.callId}`;
      if (!resolved.has(key) && runEnded.get(event.runId ?? "") === true) {
        report.lost.push(`decision on ${key} never taken, yet its run completed`);
      }
    }
  }
  for (const entry of sim.log.entries) {
    report.requestsTotal += 1;
    if (entry.status === 200) report.requestsAccepted += 1;
    else report.problems.push(`sim request ${entry.seq} refused: ${entry.status} ${entry.errorCode}`);
  }
  report.problems.push(...report.lost, ...report.doubled);
  return report;
}

function keysOf(events: LongrunEvent[], type: "tool.started" | "approval.requested" | "approval.resolved") {
  return events.flatMap((event) =>
    event.type === type ? [`${event.agentId}:${(event.data as { callId: string }).callId}`] : [],
  );
}

function countTwice(
  events: LongrunEvent[],
  type: Parameters<typeof keysOf>[1],
  into: string[],
  what: string,
) {
  const counts = new Map<string, number>();
  for (const key of keysOf(events, type)) counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const [key, count] of counts) if (count > 1) into.push(`${what} ${count} times: ${key}`);
}

/** The one line a scenario prints: runs finished / total, recovery time, anything lost or doubled. */
export function summaryLine(
  scenario: string,
  report: FaultReport,
  recoveryMs: number | null,
  extra = "",
): string {
  const recovery = recoveryMs === null ? "n/a" : `${(recoveryMs / 1000).toFixed(1)} s`;
  return [
    `[fault] ${scenario}:`,
    `runs finished ${report.runsFinished}/${report.runsTotal}${report.stuck.length ? ` (${report.stuck.length} stuck)` : ""},`,
    `recovered in ${recovery},`,
    `lost ${report.lost.length}, doubled ${report.doubled.length},`,
    `sim requests accepted ${report.requestsAccepted}/${report.requestsTotal}`,
    extra,
  ]
    .filter(Boolean)
    .join(" ");
}

/** Waits until every run of every thread ended (or is stuck), reading the API. */
export async function waitForRunsToEnd(client: LongrunClient, threadIds: string[], timeoutMs: number) {
  await vi.waitFor(
    async () => {
      const details = await Promise.all(threadIds.map((id) => client.threads.get(id)));
      const open = details.flatMap((detail) =>
        detail.runs.filter((run) => !FINISHED.has(run.status) && run.status !== "stuck").map((run) => run.id),
      );
      if (open.length > 0) throw new Error(`runs still open: ${open.join(", ")}`);
    },
    { timeout: timeoutMs, interval: 100 },
  );
}
