import { errorFields, type Logger } from "@longrun/protocol";
import {
  createBullmqQueue,
  createRedisBus,
  createRedisHealth,
  createRedisLease,
  createRedisWorkerRegistry,
  isRedisUnavailable,
} from "@longrun/queue";
import { createRedisBreakerStore } from "@longrun/runtime";
import { createMetrics, startMetricsServer } from "@longrun/server";
import type { Store } from "@longrun/store";
import type { RunningWorker } from "@longrun/worker";
import { Redis } from "ioredis";
import {
  buildRuntime,
  createModelClient,
  databaseProblem,
  type Infrastructure,
  openLog,
  startProcessMaintenance,
  startProcessWorker,
} from "./compose.ts";
import { type Config, ConfigError } from "./config/load-config.ts";
import { acquireDataDirLock } from "./data-dir-lock.ts";
import { createLogger } from "./logger.ts";
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
  log?: Logger,
): Promise<{ infra: Infrastructure; redis: Redis }> {
  const problems = [
    ...(config.redisUrl ? [] : ["REDIS_URL: required in distributed mode"]),
    ...(config.modelEndpoint ? [] : ["OPENAI_BASE_URL or LONGRUN_SIM_URL: required in distributed mode"]),
  ];
  if (problems.length > 0 || !config.redisUrl || !config.modelEndpoint) throw new ConfigError(problems);
  // One health view per process: an outage is logged once, not once per reconnect attempt.
  const health = createRedisHealth(log);
  // Fails fast while Redis is unreachable (leases, breaker, registry): a step that cannot take its lease
  // is retried by the queue, an API read answers 503.
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
  });
  health.watch(redis, "state");
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new ConfigError([
      `REDIS_URL: cannot reach Redis at ${redactUrl(config.redisUrl)}: ${error instanceof Error ? error.message : String(error)}`,
    ]);
  }
  const store = await openStore();
  const prefix = config.queuePrefix;
  const infra: Infrastructure = {
    store,
    queue: createBullmqQueue({
      connection: config.redisUrl,
      prefix,
      health,
      lockDurationMs: config.lockDurationMs,
      stalledIntervalMs: config.stalledIntervalMs,
      ...(log
        ? {
            onError: (error: Error) => {
              if (isRedisUnavailable(error)) health.error("queue", error);
              // No stack: after Redis lost its data, every running job ends with "missing key" here,
              // and the reconciler has already issued its work again.
              else log.error({ component: "queue", ...errorFields(error) }, "job queue error");
            },
          }
        : {}),
    }),
    bus: createRedisBus(config.redisUrl, prefix, {
      health,
      ...(log
        ? {
            onError: (error: unknown, channel: string) =>
              log.error({ component: "bus", channel, ...errorFields(error) }, "bus message failed"),
          }
        : {}),
    }),
    lease: createRedisLease(redis, prefix),
    breakerStore: createRedisBreakerStore({ redis, prefix: `${prefix}:breaker:` }),
    workers: createRedisWorkerRegistry(redis, prefix),
    model: createModelClient(config.modelEndpoint.baseURL, config.modelEndpoint.apiKey),
    ...(log ? { log } : {}),
    metrics: createMetrics(),
  };
  return { infra, redis };
}

/** Hides credentials in a URL for error messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    // Not a URL: shown as given (loadConfig already refused bad URLs).
    return url;
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * True once per loss: a marker key that only disappears when Redis lost its data (restarted empty,
 * flushed). Every queued job and lease went with it, so the reconciler need not wait to see that
 * nothing moves.
 */
export function redisDataLoss(redis: Redis, prefix: string): () => Promise<boolean> {
  const key = `${prefix}:epoch`;
  let known = false;
  return async () => {
    const created = (await redis.set(key, String(Date.now()), "NX")) === "OK";
    const lost = created && known;
    known = true;
    return lost;
  };
}

/**
 * Checks every dependency, registers on the data dir (shared with the other serve and worker processes,
 * refused while an embedded server runs it), then connects: a process that starts can reach all it needs.
 */
async function connectChecked(config: Config, role: "serve" | "worker") {
  const store = await preflight(config, role, () => openLog(config));
  const lock = await acquireDataDirLock(config.dataDir, role).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  try {
    const log = createLogger({ level: config.logLevel, role });
    return { ...(await connectDistributed(config, async () => store, log)), lock };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** `longrun serve`: the API and gateway; jobs run on `longrun worker` processes. */
export async function startServe(config: Config) {
  const { infra, redis, lock } = await connectChecked(config, "serve");
  const runtime = buildRuntime(infra, config);
  const maintenance = startProcessMaintenance(runtime, config, {
    embedded: false,
    jobsLost: redisDataLoss(redis, config.queuePrefix),
  });
  // LONGRUN_TOKEN is registered for the default tenant, as in embedded mode (else: `longrun token create`).
  const operator = config.token
    ? await ensureToken(infra.store, config.dataDir, config.token, "serve")
    : null;
  const api = await startApi(infra, runtime, config, "distributed", async () => ({
    database: await databaseProblem(infra.store),
    // Answers within a second either way: a readiness probe must never hang on a dead Redis.
    redis: await withTimeout(
      redis.ping().then((answer) => (answer === "PONG" ? null : `Redis answered ${answer}`)),
      1_000,
    ).catch((error: unknown) => `Redis does not answer: ${(error as Error).message}`),
  }));
  return {
    url: api.url,
    notices: [...lock.notices, ...(operator?.notices ?? [])],
    async close() {
      await api.stop();
      await maintenance.stop();
      await infra.queue.close({ graceMs: 0 });
      await infra.bus.close();
      await infra.store.close();
      redis.disconnect();
      await lock.release();
    },
  };
}

/** `longrun worker`: processes agent steps and compactions from BullMQ. */
export async function startDistributedWorker(
  config: Config,
): Promise<{ worker: RunningWorker; notices: string[]; metricsUrl: string | null; close(): Promise<void> }> {
  const { infra, redis, lock } = await connectChecked(config, "worker");
  const runtime = buildRuntime(infra, config);
  const worker = await startProcessWorker(infra, runtime, config);
  // Its own work only: the servers' /metrics never count a worker's steps.
  const metricsServer =
    config.metricsPort !== undefined && infra.metrics
      ? await startMetricsServer({
          metrics: infra.metrics,
          store: infra.store,
          port: config.metricsPort,
          host: config.host,
          ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
        })
      : null;
  const maintenance = startProcessMaintenance(runtime, config, {
    embedded: false,
    jobsLost: redisDataLoss(redis, config.queuePrefix),
  });
  return {
    worker,
    notices: lock.notices,
    metricsUrl: metricsServer ? `${metricsServer.url}/metrics` : null,
    async close() {
      await metricsServer?.close();
      await maintenance.stop();
      await worker.close(config.workerDrainMs);
      await infra.bus.close();
      await infra.store.close();
      redis.disconnect();
      await lock.release();
    },
  };
}
