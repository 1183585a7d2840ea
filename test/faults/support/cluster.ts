import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type LongrunClient } from "@longrun/client";
import { type SimModelOptions, type SimModelServer, startSimModel } from "@longrun/sim-model";
import { WebSocket } from "ws";
import { type ClusterProcess, FAST_RECOVERY, startProcess } from "../../e2e/support/distributed-cluster.ts";
import { type OwnRedis, startOwnRedis } from "./redis-server.ts";

/** A server process with the URL it listens on. */
export type ServerProcess = ClusterProcess & { url: string };

/**
 * A distributed deployment on loopback for fault scenarios: its own redis-server (which a scenario may
 * kill and restart empty), one libSQL file, the sim model in this process, any number of `longrun
 * serve` and `longrun worker` processes (each killable with SIGKILL).
 */
export interface FaultCluster {
  redis: OwnRedis;
  sim: SimModelServer;
  token: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  servers: ServerProcess[];
  workers: ClusterProcess[];
  startServer(): Promise<ServerProcess>;
  startWorker(extraEnv?: NodeJS.ProcessEnv): Promise<ClusterProcess>;
  /** An SDK client of the default tenant against server `index`. */
  client(index?: number): LongrunClient;
  close(): Promise<void>;
}

export interface FaultClusterOptions {
  servers?: number;
  workers?: number;
  workerConcurrency?: number;
  sim?: SimModelOptions;
  env?: Record<string, string>;
  workerEnv?: Record<string, string>;
}

/** Starts the deployment; every process is killed and every file removed on close. */
export async function startFaultCluster(options: FaultClusterOptions = {}): Promise<FaultCluster> {
  const redis = await startOwnRedis();
  const sim = await startSimModel({ port: 0, logLimit: 20_000, logBodies: false, ...options.sim });
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-fault-"));
  const token = `fault-token-${Math.random().toString(36).slice(2, 14)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: "0",
    LONGRUN_HOST: "127.0.0.1",
    REDIS_URL: redis.url,
    LONGRUN_QUEUE_PREFIX: "fault",
    DATABASE_URL: `file:${join(dataDir, "longrun.db")}`,
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_SIM_URL: sim.url,
    LONGRUN_TOKEN: token,
    LONGRUN_WORKER_CONCURRENCY: String(options.workerConcurrency ?? 2),
    LONGRUN_RECONCILE_MS: "1000",
    LONGRUN_STALE_MS: "5000",
    ...FAST_RECOVERY,
    ...options.env,
  };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  delete env.VITEST;
  const started: ClusterProcess[] = [];
  const clients: LongrunClient[] = [];
  const servers: ServerProcess[] = [];
  const workers: ClusterProcess[] = [];
  const startServer = async () => {
    const { process: child, line } = await startProcess("serve", env, /listening on /);
    started.push(child);
    const server = Object.assign(child, { url: /listening on (\S+)/.exec(line)?.[1] ?? "" });
    servers.push(server);
    return server;
  };
  const startWorker = async (extraEnv: NodeJS.ProcessEnv = {}) => {
    const { process: child } = await startProcess(
      "worker",
      { ...env, ...options.workerEnv, ...extraEnv },
      /processing jobs/,
    );
    started.push(child);
    workers.push(child);
    return child;
  };
  const close = async () => {
    for (const client of clients) client.close();
    await Promise.allSettled(started.map((child) => child.kill("SIGKILL")));
    await sim.close().catch(() => undefined);
    await redis.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // The first server migrates the database before anything else opens it.
    await startServer();
    for (let index = 1; index < (options.servers ?? 1); index++) await startServer();
    await Promise.all(Array.from({ length: options.workers ?? 2 }, () => startWorker()));
  } catch (error) {
    await close();
    throw error;
  }
  return {
    redis,
    sim,
    token,
    dataDir,
    env,
    servers,
    workers,
    startServer,
    startWorker,
    client(index = 0) {
      const server = servers[index];
      if (!server) throw new Error(`no server ${index}`);
      const client = createClient({
        baseUrl: server.url,
        token,
        WebSocket: WebSocket as never,
        reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
      });
      clients.push(client);
      return client;
    },
    close,
  };
}
