// Append throughput of the store: one process vs two processes on one libSQL file.
// Run from packages/store: `npx tsx bench/append.ts [messagesPerRun]` (default 2000).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAppendWorkers, type WorkerReport } from "../src/__fixtures__/spawn-worker.ts";
import { openStore } from "../src/open-store.ts";

const total = Number(process.argv[2] ?? 2000);

function summarize(name: string, reports: WorkerReport[]): void {
  const start = Math.min(...reports.map((report) => report.startedAt));
  const end = Math.max(...reports.map((report) => report.endedAt));
  const appends = reports.reduce((sum, report) => sum + report.appends, 0);
  const perSecond = Math.round(appends / ((end - start) / 1000));
  const p50 = Math.max(...reports.map((report) => report.p50)).toFixed(2);
  const p99 = Math.max(...reports.map((report) => report.p99)).toFixed(2);
  const max = Math.max(...reports.map((report) => report.max)).toFixed(1);
  console.log(
    `${name.padEnd(34)} ${String(appends).padStart(6)} appends  ${String(perSecond).padStart(6)}/s  p50 ${p50} ms  p99 ${p99} ms  max ${max} ms`,
  );
}

async function scenario(name: string, processes: number, mode: "messages" | "both"): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "longrun-bench-"));
  const url = join(dir, "bench.db");
  try {
    // Create and migrate first so the scenario measures appends only.
    await (await openStore({ url })).close();
    const perProcess = Math.floor(total / processes / (mode === "both" ? 2 : 1));
    const reports = await runAppendWorkers(
      Array.from({ length: processes }, (_, index) => [
        url,
        "agent",
        "thread",
        String(perProcess),
        `W${index}`,
        mode,
      ]),
    );
    summarize(name, reports);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function inProcess(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "longrun-bench-"));
  const store = await openStore({ url: join(dir, "bench.db") });
  try {
    const started = performance.now();
    // Concurrent callers in one process: the write queue serializes them.
    await Promise.all(
      Array.from({ length: total }, (_, index) =>
        store.messages.append("agent", { role: "user", content: `message ${index} ${"x".repeat(900)}` }),
      ),
    );
    const perSecond = Math.round(total / ((performance.now() - started) / 1000));
    console.log(
      `${"1 process, 2000 concurrent callers".padEnd(34)} ${String(total).padStart(6)} appends  ${String(perSecond).padStart(6)}/s`,
    );
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(`node ${process.version}, ${total} appends per scenario, ~1 KB messages`);
await scenario("1 process, messages", 1, "messages");
await scenario("2 processes, messages", 2, "messages");
await scenario("1 process, message+event pairs", 1, "both");
await scenario("2 processes, message+event pairs", 2, "both");
await inProcess();
