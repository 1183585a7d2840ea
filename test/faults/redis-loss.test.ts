import { afterEach, describe, expect, it, vi } from "vitest";
import { readThreadEvents } from "../e2e/support/distributed-events.ts";
import { type FaultCluster, startFaultCluster } from "./support/cluster.ts";
import { checkThreads, summaryLine, waitForRunsToEnd } from "./support/invariants.ts";

// The deployment's redis-server is SIGKILLed mid-run and started again empty: every queued job, lease
// and fence counter is gone. The log is the authority: fencing tokens never go backwards and the
// reconciler issues the jobs again.

let cluster: FaultCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

describe("fault: Redis killed and restarted empty", () => {
  it("every run finishes; while Redis is away the API fails fast and says so once", async () => {
    cluster = await startFaultCluster({ workers: 2, workerConcurrency: 5, sim: { delayMs: 20 } });
    const client = cluster.client();
    const server = cluster.servers[0]!;
    const threads = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        client.threads.create({
          model: "sim",
          simSteps: 20,
          maxInputTokens: 8_000,
          task: `Survey part ${index}.`,
        }),
      ),
    );
    const ids = threads.map((thread) => thread.id);
    await vi.waitFor(
      async () => {
        for (const id of ids) {
          const events = await client.threads.events(id, { since: 0, limit: 1_000 });
          expect(events.filter((event) => event.type === "tool.completed").length).toBeGreaterThanOrEqual(3);
        }
      },
      { timeout: 60_000, interval: 100 },
    );
    await cluster.redis.kill();
    const headers = { authorization: `Bearer ${cluster.token}`, "content-type": "application/json" };
    // Readiness says 503 within a second; new work is refused at once with a clear error.
    let ready: Response | undefined;
    await vi.waitFor(
      async () => {
        ready = await fetch(`${server.url}/readyz`);
        expect(ready.status).toBe(503);
      },
      { timeout: 10_000, interval: 100 },
    );
    const refusedAt = Date.now();
    const refused = await fetch(`${server.url}/v1/threads`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "sim", task: "Anything." }),
    });
    const refusedMs = Date.now() - refusedAt;
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unavailable");
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    // Every process notices the outage (and says so once) before Redis comes back.
    const processes = [...cluster.servers, ...cluster.workers];
    await vi.waitFor(
      () => {
        for (const child of processes)
          expect(child.output.some((line) => /Redis unreachable/.test(line))).toBe(true);
      },
      { timeout: 30_000, interval: 100 },
    );

    await cluster.redis.start();
    const restartedAt = Date.now();
    await vi.waitFor(async () => expect((await fetch(`${server.url}/readyz`)).status).toBe(200), {
      timeout: 60_000,
      interval: 100,
    });
    await waitForRunsToEnd(client, ids, 180_000);
    // Recovery: when the last thread moved again after the restart.
    let recovery = 0;
    for (const id of ids) {
      const events = await readThreadEvents(client, id);
      const next = events.find((event) => event.at >= restartedAt);
      if (next) recovery = Math.max(recovery, next.at - restartedAt);
    }
    const report = await checkThreads(client, ids, cluster.sim);
    // One line per state change per process, not one per reconnect attempt.
    const outageLines = processes.map(
      (child) => child.output.filter((line) => /Redis unreachable/.test(line)).length,
    );
    const unhandled = processes.flatMap((child) =>
      child.output.filter((line) => /Unhandled error event/.test(line)),
    );
    console.log(
      summaryLine(
        "Redis SIGKILL + restart empty",
        report,
        recovery,
        `(new work refused in ${refusedMs} ms; outage logged ${outageLines.join("/")} times per process)`,
      ),
    );
    expect(report.problems).toEqual([]);
    expect(report.runsFinished).toBe(report.runsTotal);
    expect(refusedMs).toBeLessThan(5_000);
    expect(unhandled).toEqual([]);
    expect(outageLines).toEqual(processes.map(() => 1));
    await vi.waitFor(
      () => {
        for (const child of processes)
          expect(child.output.some((line) => /Redis reachable again/.test(line))).toBe(true);
      },
      { timeout: 30_000, interval: 100 },
    );
  }, 300_000);
});
