import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";

const WORKER = fileURLToPath(new URL("./append-worker.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** What one append-worker process reported. */
export interface WorkerReport {
  label: string;
  count: number;
  appends: number;
  startedAt: number;
  endedAt: number;
  p50: number;
  p99: number;
  max: number;
}

interface Worker {
  ready: Promise<void>;
  done: Promise<WorkerReport>;
  child: ChildProcessByStdio<Writable, Readable, Readable>;
}

function startWorker(args: string[]): Worker {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, ...args], {
    cwd: PACKAGE_DIR,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes("ready\n")) markReady();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const done = new Promise<WorkerReport>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) {
        reject(new Error(`append-worker exited with ${code}: ${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as WorkerReport);
      } catch {
        reject(new Error(`append-worker printed no report: ${stdout} ${stderr}`));
      }
    });
  });
  // A worker that dies before "ready" must fail the barrier, not hang it.
  void done.catch(markReady);
  return { ready, done, child };
}

/**
 * Runs append-worker.ts in one Node process per argument list; all open the store, then start
 * appending together once every one of them is ready. Resolves with the reports when all have exited.
 */
export async function runAppendWorkers(argLists: string[][]): Promise<WorkerReport[]> {
  const workers = argLists.map(startWorker);
  await Promise.all(workers.map((worker) => worker.ready));
  for (const worker of workers) worker.child.stdin.end("go\n");
  return Promise.all(workers.map((worker) => worker.done));
}
