import { mkdir } from "node:fs/promises";
import {
  createInProcessQueue,
  createMemoryBus,
  createMemoryLease,
  createMemoryWorkerRegistry,
} from "@longrun/queue";
import { createMemoryBreakerStore } from "@longrun/runtime";
import { createMetrics } from "@longrun/server";
import { startSimModel } from "@longrun/sim-model";
import {
  buildRuntime,
  createModelClient,
  databaseProblem,
  type Infrastructure,
  openLog,
  type Runtime,
  startProcessMaintenance,
  startProcessWorker,
} from "./compose.ts";
import type { Config } from "./config/load-config.ts";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.ts";
import { createLogger } from "./logger.ts";
import { startApi } from "./server-process.ts";
import { ensureToken } from "./token-file.ts";

export interface EmbeddedInstance {
  url: string;
  token: string;
  dashboardUrl: string;
  simModelUrl: string | null;
  /** Lines worth printing at start: stale data-dir locks taken over, previous tokens revoked. */
  notices: string[];
  /**
   * This process's runtime (run control, coordinator, deps), for an embedder in the same process that
   * must act as the runtime itself would, with its events on this server's bus.
   */
  runtime: Runtime;
  close(): Promise<void>;
}

/**
 * Embedded mode: one process, a libSQL file, the in-process queue and workers, and the sim model
 * unless an OpenAI-compatible endpoint is configured.
 */
export async function startEmbedded(config: Config): Promise<EmbeddedInstance> {
  await mkdir(config.dataDir, { recursive: true });
  // Before anything runs: a second process on this data dir would take this one's runs.
  const lock = await acquireDataDirLock(config.dataDir, "start");
  try {
    return await startOnLockedDir(config, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function startOnLockedDir(config: Config, lock: DataDirLock): Promise<EmbeddedInstance> {
  const sim = config.modelEndpoint ? null : await startSimModel({ port: 0 });
  const endpoint = config.modelEndpoint ?? {
    baseURL: (sim as NonNullable<typeof sim>).baseURL,
    apiKey: "sim",
  };
  const model = createModelClient(endpoint.baseURL, endpoint.apiKey);
  const store = await openLog(config);
  const infra: Infrastructure = {
    store,
    queue: createInProcessQueue(),
    bus: createMemoryBus(),
    lease: createMemoryLease(),
    breakerStore: createMemoryBreakerStore(),
    workers: createMemoryWorkerRegistry(),
    model,
    log: createLogger({ level: config.logLevel, role: "start" }),
    metrics: createMetrics(),
  };
  const runtime = buildRuntime(infra, config);
  const { token, notices } = await ensureToken(store, config.dataDir, config.token, "start");
  const worker = await startProcessWorker(infra, runtime, config, "embedded");
  // A restart on the same data dir: runs that were moving have no job in the new in-process queue.
  const maintenance = startProcessMaintenance(runtime, config, { embedded: true });
  const api = await startApi(infra, runtime, config, "embedded", async () => ({
    database: await databaseProblem(store),
  }));
  return {
    url: api.url,
    token,
    dashboardUrl: `${api.url}/?token=${encodeURIComponent(token)}`,
    simModelUrl: sim?.url ?? null,
    notices: [...lock.notices, ...notices],
    runtime,
    async close() {
      await api.stop();
      await maintenance.stop();
      await worker.close(5_000);
      await infra.bus.close();
      await store.close();
      await sim?.close();
      await lock.release();
    },
  };
}
