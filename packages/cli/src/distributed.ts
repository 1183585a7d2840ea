import { createBullmqQueue, createRedisBus, createRedisLease } from "@longrun/queue";
import { createRedisBreakerStore } from "@longrun/runtime";
import type { Store } from "@longrun/store";
import { createRedisWorkerRegistry, type RunningWorker } from "@longrun/worker";
import { Redis } from "ioredis";
import {
  buildRuntime,
  createModelClient,
  type Infrastructure,
  openLog,
  startProcessWorker,
} from "./compose.ts";
import { type Config, ConfigError } from "./config/load-config.ts";
import { preflight } from "./preflight.ts";
import { startApi } from "./server-process.ts";
import { ensureToken } from "./token-file.ts";

/**
 * Distributed mode's shared services: BullMQ, Redis pub/sub, Redis leases and breaker state. It
 * assumes its dependencies answer; `longrun serve` and `longrun worker` check them first (preflight).
 */
export async function connectDistributed(
  config: Config,
  openStore: () => Promise<Store> = () => openLog(config),
): Promise<{ infra: Infrastructure; redis: Redis }> {
  const problems = [
    ...(config.redisUrl ? [] : ["REDIS_URL: required in distributed mode"]),
    ...(config.modelEndpoint ? [] : ["OPENAI_BASE_URL or LONGRUN_SIM_URL: required in distributed mode"]),
  ];
  if (problems.length > 0 || !config.redisUrl || !config.modelEndpoint) throw new ConfigError(problems);
  const store = await openStore();
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
  const prefix = config.queuePrefix;
  const infra: Infrastructure = {
    store,
    queue: createBullmqQueue({
      connection: config.redisUrl,
      prefix,
      lockDurationMs: config.lockDurationMs,
      stalledIntervalMs: config.stalledIntervalMs,
    }),
    bus: createRedisBus(config.redisUrl, prefix),
    lease: createRedisLease(redis, prefix),
    breakerStore: createRedisBreakerStore({ redis, prefix: `${prefix}:breaker:` }),
    workers: createRedisWorkerRegistry(redis, prefix),
    model: createModelClient(config.modelEndpoint.baseURL, config.modelEndpoint.apiKey),
  };
  return { infra, redis };
}

/** Checks every dependency, then connects: a process that starts can reach all it needs. */
async function connectChecked(config: Config, role: "serve" | "worker") {
  const store = await preflight(config, role, () => openLog(config));
  return connectDistributed(config, async () => store);
}

/** `longrun serve`: the API and gateway; jobs run on `longrun worker` processes. */
export async function startServe(config: Config) {
  const { infra, redis } = await connectChecked(config, "serve");
  const runtime = buildRuntime(infra, config);
  // LONGRUN_TOKEN is registered for the default tenant, as in embedded mode (else: `longrun token create`).
  if (config.token) await ensureToken(infra.store, config.dataDir, config.token);
  const api = await startApi(infra, runtime, config, "distributed", async () => ({
    database: await infra.store.ping().then(
      () => true,
      () => false,
    ),
    redis: await redis.ping().then(
      (answer) => answer === "PONG",
      () => false,
    ),
  }));
  return {
    url: api.url,
    async close() {
      await api.stop();
      await infra.queue.close({ graceMs: 0 });
      await infra.bus.close();
      await infra.store.close();
      redis.disconnect();
    },
  };
}

/** `longrun worker`: processes agent steps and compactions from BullMQ. */
export async function startDistributedWorker(
  config: Config,
): Promise<{ worker: RunningWorker; close(): Promise<void> }> {
  const { infra, redis } = await connectChecked(config, "worker");
  const runtime = buildRuntime(infra, config);
  const worker = await startProcessWorker(infra, runtime, config);
  return {
    worker,
    async close() {
      await worker.close(config.workerDrainMs);
      await infra.bus.close();
      await infra.store.close();
      redis.disconnect();
    },
  };
}
