// Workspace snapshots (issue 37 item 2): what they store and what they cost, on the sim's writer agent
// (a ~6 KB file written every third step, read, then edited) in embedded mode on a real libSQL file.
// Run: npx tsx test/bench/workspace-snapshots.ts [steps=200]
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { createClient } from "@longrun/client";
import { startSimModel } from "@longrun/sim-model";

const steps = Number(process.argv[2] ?? 200);

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) total += entry.name === ".longrun" ? 0 : await folderBytes(full);
    else total += (await stat(full)).size;
  }
  return total;
}

async function run(snapshotMaxBytes: string) {
  const sim = await startSimModel({});
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-snap-"));
  const env = {
    PORT: "0",
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_SIM_URL: sim.url,
    LONGRUN_TIME_ZONE: "UTC",
    LONGRUN_LOG_LEVEL: "warn",
    LONGRUN_SNAPSHOT_MAX_BYTES: snapshotMaxBytes,
  };
  const instance = await startEmbedded(loadConfig(env));
  try {
    const client = createClient({ baseUrl: instance.url, token: instance.token });
    const started = performance.now();
    const created = await client.threads.create({
      model: "sim",
      simScript: "writer",
      simSteps: steps,
      task: "Write the handbook",
    });
    const runId = created.runs[0]!.id;
    for (;;) {
      const detail = await client.threads.get(created.id);
      const status = detail.runs.find((candidate) => candidate.id === runId)?.status;
      if (status === "completed") break;
      if (status === "failed" || status === "cancelled") throw new Error(`run ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const runMs = performance.now() - started;
    const detail = await client.threads.get(created.id);
    const root = detail.agents.find((agent) => !agent.parentAgentId)!;
    const facts = (await client.agents.messages(root.id, { afterSeq: -1, limit: 5000 })).messages;
    const store = await openLog(loadConfig(env));
    const rows = await store.fileSnapshots.list(created.id);
    const usage = await store.fileSnapshots.blobUsage(detail.tenantId);
    await store.close();
    const changes = rows.filter((row) => row.phase === "after");
    const changedBytes = changes.reduce((sum, row) => sum + (row.size ?? 0), 0);
    const forkStart = performance.now();
    const fork = await client.threads.fork(created.id, {
      atMessageId: facts[Math.floor(facts.length / 2)]!.id,
    });
    const forkMs = performance.now() - forkStart;
    return {
      snapshotMaxBytes,
      steps,
      facts: facts.length,
      changes: changes.length,
      rows: rows.length,
      changedBytes,
      blobs: usage.blobs,
      blobBytes: usage.bytes,
      workspaceBytes: await folderBytes(detail.workspaceDir),
      forkWorkspaceBytes: await folderBytes(fork.workspaceDir),
      msPerStep: Math.round((runMs / steps) * 10) / 10,
      forkMs: Math.round(forkMs),
    };
  } finally {
    await instance.close();
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

// Alternated, twice each, so neither setting always runs on a cold (or warm) process.
const hashOnly = [await run("0")];
const kept = [await run("1048576")];
hashOnly.push(await run("0"));
kept.push(await run("1048576"));
const mean = (runs: Array<{ msPerStep: number }>) =>
  runs.reduce((sum, one) => sum + one.msPerStep, 0) / runs.length;
console.log(JSON.stringify({ kept, hashOnly, stepTimeRatio: mean(kept) / mean(hashOnly) }, null, 2));
