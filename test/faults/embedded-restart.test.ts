import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type LongrunClient } from "@longrun/client";
import { type SimModelServer, startSimModel } from "@longrun/sim-model";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocket } from "ws";
import { type ClusterProcess, startProcess } from "../e2e/support/distributed-cluster.ts";
import { readThreadEvents } from "../e2e/support/distributed-events.ts";
import { checkThreads, summaryLine, waitForRunsToEnd } from "./support/invariants.ts";

// `longrun start` as a real process: stopped mid-run (SIGKILL, then SIGTERM) and started again on the
// same data dir. Its in-process queue is gone with it; the runs must finish from the log.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startEmbedded(
  dataDir: string,
  token: string,
  sim: SimModelServer,
): Promise<{ process: ClusterProcess; client: LongrunClient }> {
  // The sim model lives in this process, so it outlives the restarts and its log covers every request.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_TOKEN: token,
    OPENAI_BASE_URL: sim.baseURL,
    OPENAI_API_KEY: "sim",
  };
  delete env.VITEST;
  const { process: child, line } = await startProcess("start", env, /API:\s+(\S+)\/v1/);
  const url = /API:\s+(\S+)\/v1/.exec(line)?.[1] ?? "";
  const client = createClient({ baseUrl: url, token, WebSocket: WebSocket as never });
  cleanups.push(async () => {
    client.close();
    await child.kill("SIGKILL");
  });
  return { process: child, client };
}

describe("fault: the embedded server stopped mid-run and started again on the same data dir", () => {
  it("finishes the interrupted run from the log, and takes the next message", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "longrun-restart-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const token = "restart-test-token-0123456789";
    const sim = await startSimModel({ port: 0, logLimit: 20_000, logBodies: false });
    cleanups.push(() => sim.close());
    let { process: server, client } = await startEmbedded(dataDir, token, sim);
    const thread = await client.threads.create({
      model: "sim",
      simSteps: 30,
      maxInputTokens: 8_000,
      task: "Survey the warehouse service.",
    });
    const lines: string[] = [];
    for (const signal of ["SIGKILL", "SIGTERM"] as const) {
      const seen = (await readThreadEvents(client, thread.id)).length;
      await vi.waitFor(
        async () => expect((await readThreadEvents(client, thread.id)).length).toBeGreaterThan(seen + 20),
        { timeout: 60_000, interval: 50 },
      );
      await server.kill(signal);
      client.close();
      const restartedAt = Date.now();
      ({ process: server, client } = await startEmbedded(dataDir, token, sim));
      const before = (await readThreadEvents(client, thread.id)).length;
      await vi.waitFor(
        async () => expect((await readThreadEvents(client, thread.id)).length).toBeGreaterThan(before),
        { timeout: 60_000, interval: 50 },
      );
      const recovery = Date.now() - restartedAt;
      if (signal === "SIGTERM") {
        await waitForRunsToEnd(client, [thread.id], 120_000);
      }
      lines.push(`${signal}: moving again ${(recovery / 1000).toFixed(1)} s after the restart`);
    }
    // A follow-up message is taken and finished, not left queued.
    const next = await client.threads.sendMessage(thread.id, { content: "Now list the tests." });
    expect(next.queued).toBe(false);
    await waitForRunsToEnd(client, [thread.id], 120_000);
    const report = await checkThreads(client, [thread.id], sim);
    console.log(
      summaryLine("embedded restart mid-run (SIGKILL, then SIGTERM)", report, null, `(${lines.join("; ")})`),
    );
    expect(report.problems).toEqual([]);
    expect(report.runsFinished).toBe(report.runsTotal);
    expect((await client.threads.get(thread.id)).runs.map((run) => run.status)).toEqual([
      "completed",
      "completed",
    ]);
  }, 300_000);
});
