import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type FaultCluster, startFaultCluster } from "../faults/support/cluster.ts";
import { runLongrun } from "./support/run-command.ts";

// Two `longrun serve` processes and one worker over one store: each process's /metrics counts only
// the work it did, so the sum over the processes is what happened (issue 36), and /metrics answers
// only to its own token or an admin key.

const METRICS_TOKEN = "metrics-scraper-token-0123456789";
let cluster: FaultCluster;
let workerMetricsUrl = "";
beforeAll(async () => {
  cluster = await startFaultCluster({
    servers: 2,
    workers: 1,
    env: { LONGRUN_METRICS_TOKEN: METRICS_TOKEN },
    workerEnv: { LONGRUN_METRICS_PORT: "0" },
  });
  const worker = cluster.workers[0];
  await vi.waitFor(() => {
    const line = worker?.output.find((text) => /metrics: http/.test(text));
    workerMetricsUrl = /metrics: (\S+)/.exec(line ?? "")?.[1] ?? "";
    expect(workerMetricsUrl).not.toBe("");
  }, 60_000);
}, 120_000);
afterAll(async () => {
  await cluster?.close();
});

async function scrape(url: string, token: string | null = METRICS_TOKEN) {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: response.status, text: await response.text() };
}

/** The sum of every sample of `name` (all label sets) in a Prometheus text exposition. */
function total(text: string, name: string): number {
  return text
    .split("\n")
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
}

describe("metrics counted by the process that does the work", () => {
  it("two servers' run counters add up to the runs admitted; outcomes and steps are the worker's", async () => {
    const [first, second] = [cluster.client(0), cluster.client(1)];
    const thread = (client: typeof first, index: number) =>
      client.threads.create({
        model: "sim",
        simSteps: 2,
        maxInputTokens: 32_000,
        task: `Look around (${index}).`,
      });
    const created = await Promise.all([thread(first, 1), thread(first, 2), thread(second, 3)]);
    // A gateway turn on the second server is a run admitted too.
    const gateway = await fetch(`${cluster.servers[1]?.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${cluster.token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "sim", messages: [{ role: "user", content: "Say hello." }] }),
    });
    expect(gateway.status).toBe(200);
    await gateway.text();
    const runIds = created.map((detail) => detail.runs[0]?.id ?? "");
    await Promise.all(runIds.map((runId) => first.runs.wait(runId)));

    const [a, b] = await Promise.all(cluster.servers.map((server) => scrape(`${server.url}/metrics`)));
    expect([a?.status, b?.status]).toEqual([200, 200]);
    expect(total(a?.text ?? "", "longrun_runs_total")).toBe(2);
    expect(total(b?.text ?? "", "longrun_runs_total")).toBe(2);
    expect(b?.text).toMatch(/longrun_runs_total\{kind="gateway",tenant="default"\} 1/);
    const worker = await scrape(workerMetricsUrl);
    expect(worker.status).toBe(200);
    // The three API runs ended on the worker; the gateway turn ran (and ended) in the second server.
    // Summed over the processes, each run ended once.
    expect(total(worker.text, "longrun_run_outcomes_total")).toBe(3);
    expect(total(a?.text ?? "", "longrun_run_outcomes_total")).toBe(0);
    expect(total(b?.text ?? "", "longrun_run_outcomes_total")).toBe(1);
    expect(total(worker.text, "longrun_step_seconds_count")).toBeGreaterThanOrEqual(3);
    expect(total(worker.text, "longrun_model_call_seconds_count")).toBeGreaterThanOrEqual(3);
    expect(total(worker.text, "longrun_queue_wait_seconds_count")).toBeGreaterThanOrEqual(3);
    expect(worker.text).toContain("longrun_process_cpu_seconds_total");
  });

  it("refuses /metrics without its credential, and to a tenant's ordinary token", async () => {
    const url = `${cluster.servers[0]?.url}/metrics`;
    expect((await scrape(url, null)).status).toBe(401);
    expect((await scrape(url, "not-a-token-at-all")).status).toBe(401);
    const created = await runLongrun(["token", "create", "--tenant", "tenant-m"], cluster.env);
    expect(created.code, created.stderr).toBe(0);
    expect((await scrape(url, created.stdout.trim())).status).toBe(403);
    expect((await scrape(workerMetricsUrl, created.stdout.trim())).status).toBe(403);
    expect((await scrape(workerMetricsUrl, null)).status).toBe(401);
    // The operator's admin token reads it too.
    expect((await scrape(url, cluster.token)).status).toBe(200);
  });
});
