import { chmod, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { LongrunEvent } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readThreadEvents } from "../e2e/support/distributed-events.ts";
import { type FaultCluster, startFaultCluster } from "./support/cluster.ts";
import { checkThreads, summaryLine, waitForRunsToEnd } from "./support/invariants.ts";

// Real processes on loopback: `longrun serve`, two `longrun worker`, the test's own redis-server and
// libSQL file. A worker is SIGKILLed while it runs steps, or while it runs an approved command.

let cluster: FaultCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

/** The first event of each thread after `at`, as ms after `at` (how long each thread stood still). */
async function stillFor(client: ReturnType<FaultCluster["client"]>, threadIds: string[], at: number) {
  let worst = 0;
  for (const threadId of threadIds) {
    const events = await readThreadEvents(client, threadId);
    const next = events.find((event) => event.at > at);
    if (next) worst = Math.max(worst, next.at - at);
  }
  return worst;
}

describe("fault: a worker SIGKILLed", () => {
  it("mid-step: every run finishes on the other worker; nothing lost, nothing run twice", async () => {
    cluster = await startFaultCluster({ workers: 2, workerConcurrency: 3, sim: { delayMs: 60 } });
    const client = cluster.client();
    const threads = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        client.threads.create({
          model: "sim",
          simSteps: 18,
          maxInputTokens: 8_000,
          task: `Survey the project, part ${index}.`,
        }),
      ),
    );
    const ids = threads.map((thread) => thread.id);
    // Every worker is busy: each thread has taken a few steps.
    await vi.waitFor(
      async () => {
        for (const id of ids) {
          const events = await client.threads.events(id, { since: 0, limit: 1_000 });
          expect(events.filter((event) => event.type === "tool.completed").length).toBeGreaterThanOrEqual(2);
        }
      },
      { timeout: 60_000, interval: 100 },
    );
    const killedAt = Date.now();
    await cluster.workers[0]?.kill("SIGKILL");
    await waitForRunsToEnd(client, ids, 120_000);
    const report = await checkThreads(client, ids, cluster.sim);
    const recovery = await stillFor(client, ids, killedAt);
    console.log(summaryLine("worker SIGKILL mid-step", report, recovery));
    expect(report.problems).toEqual([]);
    expect(report.runsFinished).toBe(report.runsTotal);
  }, 240_000);

  it("mid-approved-command: the decision is kept, the command never runs twice, the run finishes", async () => {
    // `ls` on the workers' PATH records who ran it and then takes long, so the kill lands while it runs.
    const bin = join(process.env.TMPDIR ?? "/tmp", `longrun-fault-bin-${process.pid}-${Date.now()}`);
    const marker = join(bin, "ls.log");
    await mkdir(bin, { recursive: true });
    await writeFile(
      join(bin, "ls"),
      `#!/bin/sh\nGRAND=$(ps -o ppid= -p $PPID | tr -d ' ')\necho "$$ $PPID $GRAND" >> ${marker}\nsleep 30\nexec /bin/ls "$@"\n`,
    );
    await chmod(join(bin, "ls"), 0o755);
    cluster = await startFaultCluster({
      workers: 2,
      workerConcurrency: 1,
      workerEnv: { PATH: `${bin}:${process.env.PATH ?? ""}` },
    });
    const client = cluster.client();
    const thread = await client.threads.create({
      model: "sim",
      simScript: "approval",
      simSteps: 4,
      maxInputTokens: 32_000,
      task: "Check the repository state.",
    });
    const agentId = thread.agents[0]?.id ?? "";
    let requested: LongrunEvent | undefined;
    await vi.waitFor(
      async () => {
        const events = await client.threads.events(thread.id, { since: 0, limit: 1_000 });
        requested = events.find((event) => event.type === "approval.requested");
        expect(requested).toBeDefined();
      },
      { timeout: 60_000, interval: 50 },
    );
    const callId = requested?.type === "approval.requested" ? requested.data.callId : "";
    const decided = await fetch(`${cluster.servers[0]?.url}/v1/agents/${agentId}/approvals/${callId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${cluster.token}`, "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(decided.status).toBe(200);
    // The command is running: find the worker process behind it and kill it.
    let line = "";
    await vi.waitFor(
      async () => {
        line = (await readFile(marker, "utf8").catch(() => "")).trim();
        expect(line).not.toBe("");
      },
      { timeout: 60_000, interval: 50 },
    );
    // Commands run in their own PID namespace, where the script's own pids say nothing of the host's:
    // walk up from the script's host pid (found by its path in /proc) to the worker that started it.
    const pids = await hostAncestors(join(bin, "ls"));
    const victim = cluster.workers.find((worker) => pids.includes(worker.pid));
    expect(victim, `no worker among ${pids.join(" ")} (script: ${line})`).toBeDefined();
    const killedAt = Date.now();
    await victim?.kill("SIGKILL");

    await waitForRunsToEnd(client, [thread.id], 120_000);
    const report = await checkThreads(client, [thread.id], cluster.sim);
    const recovery = await stillFor(client, [thread.id], killedAt);
    const started = (await readFile(marker, "utf8")).trim().split("\n").length;
    const facts = (await client.agents.messages(agentId, { limit: 1_000 })).messages;
    const result = facts.find((fact) => fact.toolCallId === callId);
    console.log(
      summaryLine(
        "worker SIGKILL mid-approved-command",
        report,
        recovery,
        `(command started ${started} time)`,
      ),
    );
    expect(report.problems).toEqual([]);
    expect(report.runsFinished).toBe(report.runsTotal);
    // Started once, never again: the recovered step answers it as interrupted instead of re-running it,
    // and does not ask for a second decision.
    expect(started).toBe(1);
    expect(result?.toolStatus).toBe("cancelled");
    expect(String(result?.content)).toMatch(/interrupted/);
  }, 240_000);
});

/** Host pids of a process whose command line names `path`, and of all its ancestors. */
async function hostAncestors(path: string): Promise<number[]> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "");
    if (!cmdline.split("\0").includes(path)) continue;
    const chain: number[] = [];
    let pid = Number(entry);
    while (pid > 1 && chain.length < 64) {
      chain.push(pid);
      const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
      // The parent pid is the second field after the parenthesised command name.
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1] ?? 0);
    }
    return chain;
  }
  return [];
}
