import { mkdtemp, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { startSimModel } from "@longrun/sim-model";
import { createTestRedis } from "@longrun/testing";
import { afterAll, describe, expect, it } from "vitest";
import { type ClusterProcess, startDistributedCluster, startProcess } from "./support/distributed-cluster.ts";
import { runLongrun } from "./support/run-command.ts";

// Real processes on one data dir: an embedded server holds it alone; serve + workers share it; a lock
// left by a killed process is taken over with a line saying so.

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function embeddedEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", LONGRUN_DATA_DIR: dataDir, LONGRUN_TOKEN: "" };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  delete env.VITEST;
  return env;
}

async function startEmbeddedProcess(dataDir: string): Promise<ClusterProcess> {
  const { process: child } = await startProcess("start", embeddedEnv(dataDir), /API:\s+\S+\/v1/);
  cleanups.push(() => child.kill("SIGKILL"));
  return child;
}

const holderLine = (pid: number, mode: string, role: string) =>
  new RegExp(
    `is in use by pid ${pid} on host ${hostname().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\(${mode} mode, longrun ${role}, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\)`,
  );

describe("the data-dir lock", () => {
  it("refuses a second embedded server and a distributed server; a killed holder's lock is taken over", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "longrun-lock-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const first = await startEmbeddedProcess(dataDir);

    const second = await runLongrun(["start"], embeddedEnv(dataDir));
    expect(second.code, second.stdout).toBe(1);
    expect(second.stderr).toMatch(holderLine(first.pid, "embedded", "start"));
    expect(second.stderr).toContain(`LONGRUN_DATA_DIR ${dataDir}`);

    // `longrun serve` on the same dir (the README's one-host example uses the default .longrun).
    const sim = await startSimModel({ port: 0 });
    cleanups.push(() => sim.close());
    // A prefix of the test's own, deleted after it: serve registers this data dir's volume-id under it.
    const redis = await createTestRedis();
    cleanups.push(() => redis.cleanup());
    const serve = await runLongrun(["serve"], {
      ...embeddedEnv(dataDir),
      REDIS_URL: redis.url,
      LONGRUN_QUEUE_PREFIX: redis.prefix,
      LONGRUN_SIM_URL: sim.url,
      LONGRUN_TOKEN: "lock-test-token-0123456789",
    });
    expect(serve.code, serve.stdout).toBe(1);
    expect(serve.stderr).toMatch(holderLine(first.pid, "embedded", "start"));

    await first.kill("SIGKILL");
    const third = await startEmbeddedProcess(dataDir);
    expect(third.output.join("\n")).toMatch(
      new RegExp(
        `took over the stale lock of pid ${first.pid} on host .+ \\(embedded mode, longrun start, .+\\): that process is gone`,
      ),
    );
    await third.kill("SIGTERM");
    // A clean stop leaves no lock: the next start says nothing about a stale one.
    const fourth = await startEmbeddedProcess(dataDir);
    expect(fourth.output.join("\n")).not.toContain("stale lock");
    await fourth.kill("SIGTERM");
  }, 120_000);

  it("lets serve and workers share a data dir and refuses an embedded server on it", async () => {
    const cluster = await startDistributedCluster({ workers: 2 });
    cleanups.push(() => cluster.close());
    const embedded = await runLongrun(["start"], embeddedEnv(cluster.dataDir));
    expect(embedded.code, embedded.stdout).toBe(1);
    expect(embedded.stderr).toMatch(holderLine(cluster.server.pid, "distributed", "serve"));
    // One more worker still joins.
    const late = await cluster.startWorker();
    expect(late.output.join("\n")).toMatch(/processing jobs/);
  }, 120_000);
});
