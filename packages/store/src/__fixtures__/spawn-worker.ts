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
  /** The worker opened the store and waits for "append". */
  opened: Promise<void>;
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
  const heard: { word: string; resolve: () => void }[] = [];
  /** Resolves once the worker has said `word` on stdout. */
  const said = (word: string) =>
    new Promise<void>((resolve) => {
      heard.push({ word, resolve });
    });
  const ready = said("ready");
  const opened = said("opened");
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const { word, resolve } of heard) if (stdout.includes(`${word}\n`)) resolve();
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
  // A worker that dies before "ready" or "opened" must fail the barrier, not hang it.
  void done.catch(() => {
    for (const { resolve } of heard) resolve();
  });
  return { ready, opened, done, child };
}

/**
 * Runs append-worker.ts in one Node process per argument list; all open the store together once
 * every one of them is ready, then start appending together once every one has opened it (opening a
 * new file races to migrate it and may hold one worker back). Resolves with the reports when all
 * have exited.
 */
export async function runAppendWorkers(argLists: string[][]): Promise<WorkerReport[]> {
  const workers = argLists.map(startWorker);
  await Promise.all(workers.map((worker) => worker.ready));
  for (const worker of workers) worker.child.stdin.write("go\n");
  await Promise.all(workers.map((worker) => worker.opened));
  for (const worker of workers) worker.child.stdin.end("append\n");
  return Promise.all(workers.map((worker) => worker.done));
}
