import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type SimModelOptions, type SimModelServer, startSimModel } from "@longrun/sim-model";
import { createTestRedis, type TestRedis } from "@longrun/testing";

/** The repository root: processes run from here so the workspaces resolve. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The `longrun` command (`npx longrun`), run by node itself: no npx wrapper between us and the process. */
const LONGRUN_BIN = join(REPO_ROOT, "packages/cli/bin/longrun.js");

/** Timings small enough that a SIGKILLed worker's jobs and leases come back within seconds. */
export const FAST_RECOVERY = {
  LONGRUN_LEASE_MS: "3000",
  LONGRUN_LOCK_MS: "3000",
  LONGRUN_STALLED_INTERVAL_MS: "1000",
};

/** One `longrun serve` or `longrun worker` OS process. */
export interface ClusterProcess {
  readonly role: "serve" | "worker" | "start";
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr (for failure messages). */
  readonly output: string[];
  readonly pid: number;
  /** Kills the process itself (no npx/tsx wrapper in between) and waits for it to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** A distributed deployment on loopback: sim model (in this process), one server, N workers. */
export interface DistributedCluster {
  url: string;
  token: string;
  redis: TestRedis;
  sim: SimModelServer;
  dataDir: string;
  databaseUrl: string;
  server: ClusterProcess;
  workers: ClusterProcess[];
  /** Environment every process got (for a late `longrun worker`). */
  env: NodeJS.ProcessEnv;
  startWorker(): Promise<ClusterProcess>;
  close(): Promise<void>;
}

export interface ClusterOptions {
  workers?: number;
  /** LONGRUN_WORKER_CONCURRENCY of each worker. */
  workerConcurrency?: number;
  sim?: SimModelOptions;
  env?: Record<string, string>;
}

/** Starts `longrun <role>` and resolves once it printed `ready`. */
export async function startProcess(
  role: "serve" | "worker" | "start",
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<{ process: ClusterProcess; line: string }> {
  // `node <bin>`, not `npx longrun`: npx forks, and SIGKILL must hit the worker itself.
  const child = spawn(process.execPath, [LONGRUN_BIN, role], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  createInterface({ input: child.stderr! }).on("line", (line) => output.push(`[${role} err] ${line}`));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    let found = false;
    lines.on("line", (text) => {
      output.push(`[${role}] ${text}`);
      if (!found && ready.test(text)) {
        found = true;
        resolve(text);
      }
    });
    child.once("exit", (code, signal) => {
      if (!found)
        reject(new Error(`longrun ${role} exited (${code ?? signal}) before ready:\n${output.join("\n")}`));
    });
  });
  const handle: ClusterProcess = {
    role,
    child,
    output,
    pid: child.pid ?? -1,
    async kill(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill(signal);
      // A graceful stop that hangs is finished off: tests must not wait on a stuck process.
      const timer =
        signal === "SIGKILL" ? undefined : setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
      await exited;
      clearTimeout(timer);
    },
  };
  return { process: handle, line };
}

/** Starts the sim model, one server and `workers` worker processes on a fresh prefix and database. */
export async function startDistributedCluster(options: ClusterOptions = {}): Promise<DistributedCluster> {
  const redis = await createTestRedis();
  const sim = await startSimModel({ port: 0, logLimit: 5_000, logBodies: false, ...options.sim });
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-dist-"));
  const databaseUrl = `file:${join(dataDir, "longrun.db")}`;
  const token = `e2e-${redis.prefix}-token`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    LONGRUN_HOST: "127.0.0.1",
    REDIS_URL: redis.url,
    LONGRUN_QUEUE_PREFIX: redis.prefix,
    DATABASE_URL: databaseUrl,
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_SIM_URL: sim.url,
    LONGRUN_TOKEN: token,
    LONGRUN_WORKER_CONCURRENCY: String(options.workerConcurrency ?? 2),
    ...FAST_RECOVERY,
    ...options.env,
  };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  delete env.VITEST;
  const started: ClusterProcess[] = [];
  const cleanup = async () => {
    await Promise.allSettled(started.map((child) => child.kill("SIGKILL")));
    await sim.close().catch(() => undefined);
    await redis.cleanup().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // The server first: it migrates the database before any worker opens it.
    const serve = await startProcess("serve", env, /listening on /);
    started.push(serve.process);
    const url = /listening on (\S+)/.exec(serve.line)?.[1] ?? "";
    const workers: ClusterProcess[] = [];
    const startWorker = async () => {
      const worker = await startProcess("worker", env, /processing jobs/);
      started.push(worker.process);
      workers.push(worker.process);
      return worker.process;
    };
    await Promise.all(Array.from({ length: options.workers ?? 2 }, startWorker));
    return {
      url,
      token,
      redis,
      sim,
      dataDir,
      databaseUrl,
      server: serve.process,
      workers,
      env,
      startWorker,
      async close() {
        // Graceful first (SIGTERM), so the processes close their Redis connections before the keys go.
        await Promise.allSettled(started.map((child) => child.kill("SIGTERM")));
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
