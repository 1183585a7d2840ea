import type { LongrunEvent } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { collectEvents, readThreadEvents } from "../e2e/support/distributed-events.ts";
import { type FaultCluster, startFaultCluster } from "./support/cluster.ts";
import { checkThreads, summaryLine, waitForRunsToEnd } from "./support/invariants.ts";

// Two `longrun serve` processes behind no balancer: a client on the first resumes on the second after
// the first is SIGKILLed; the runs (on the workers) never notice.

let cluster: FaultCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe("fault: one of two API servers SIGKILLed", () => {
  it("runs go on, and a client resumes on the other server with no event missing or repeated", async () => {
    cluster = await startFaultCluster({ servers: 2, workers: 2, workerConcurrency: 2, sim: { delayMs: 30 } });
    const first = cluster.client(0);
    const threads = await Promise.all(
      Array.from({ length: 3 }, (_, index) =>
        first.threads.create({
          model: "sim",
          simSteps: 20,
          maxInputTokens: 8_000,
          task: `Survey part ${index}.`,
        }),
      ),
    );
    const ids = threads.map((thread) => thread.id);
    const watched = ids[0] ?? "";
    const before = collectEvents(first, { threadId: watched, since: 0 });
    await before.waitFor((event) => event.type === "tool.completed", 60_000);
    await vi.waitFor(() => expect(before.events.length).toBeGreaterThan(10), {
      timeout: 60_000,
      interval: 50,
    });

    const killedAt = Date.now();
    await cluster.servers[0]?.kill("SIGKILL");
    const lastSeen = before.events.at(-1)?.seq ?? 0;
    first.close();
    // The client moves to the other server and resumes after what it saw.
    const second = cluster.client(1);
    const after = collectEvents(second, { threadId: watched, since: lastSeen });
    await after.waitFor(() => true, 60_000);
    const resumedAt = Date.now();
    // Commands work there too.
    const extra = await second.threads.create({
      model: "sim",
      simSteps: 3,
      maxInputTokens: 8_000,
      task: "Quick look.",
    });
    ids.push(extra.id);

    await waitForRunsToEnd(second, ids, 120_000);
    const log = await readThreadEvents(second, watched);
    await vi.waitFor(() => expect(after.events.at(-1)?.seq).toBe(log.at(-1)?.seq), { timeout: 60_000 });
    const received: LongrunEvent[] = [
      ...before.events.filter((event) => event.seq <= lastSeen),
      ...after.events,
    ];
    expect(received.map((event) => event.seq)).toEqual(log.map((event) => event.seq));

    const report = await checkThreads(second, ids, cluster.sim);
    console.log(
      summaryLine(
        "API server SIGKILL (1 of 2)",
        report,
        resumedAt - killedAt,
        `(resumed ${log.length} events, 0 gaps, 0 duplicates)`,
      ),
    );
    expect(report.problems).toEqual([]);
    expect(report.runsFinished).toBe(report.runsTotal);
  }, 240_000);
});
