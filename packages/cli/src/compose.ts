import { createTokenizer, estimateStoredTokens } from "@longrun/compaction";
import { type Logger, LongrunError, type OpsView, silentLogger } from "@longrun/protocol";
import {
  type Bus,
  createScheduler,
  isRedisUnavailable,
  type JobQueue,
  type Lease,
  type WorkerRegistry,
} from "@longrun/queue";
import {
  type BreakerStore,
  Coordinator,
  createBreaker,
  createMessageCounter,
  createPersistingEventSink,
  createToolRegistry,
  DEFAULT_TENANT_LIMITS,
  RunControl,
  type RuntimeDeps,
  startMaintenance,
  type TenantLimitsConfig,
} from "@longrun/runtime";
import type { Metrics } from "@longrun/server";
import { openStore, type Store } from "@longrun/store";
import { type RunningWorker, startWorker } from "@longrun/worker";
import OpenAI from "openai";
import type { Config } from "./config/load-config.ts";

/** The shared services of one process, embedded or distributed. */
export interface Infrastructure {
  store: Store;
  queue: JobQueue;
  bus: Bus;
  lease: Lease;
  breakerStore: BreakerStore;
  workers: WorkerRegistry;
  model: OpenAI;
  /** The process's logger (none: silent, as in benches). */
  log?: Logger;
  /** The process's own metrics (none: not measured, as in benches); /metrics of its server or worker. */
  metrics?: Metrics;
}

export interface Runtime {
  deps: RuntimeDeps;
  coordinator: Coordinator;
  runControl: RunControl;
}

const tokenizer = createTokenizer("o200k_base");

/** Opens the log with token counts computed once, on append, by the same tokenizer the pipeline uses. */
export function openLog(
  config: Pick<Config, "databaseUrl" | "databaseAuthToken"> & Partial<Pick<Config, "dataDir">>,
): Promise<Store> {
  return openStore({
    url: config.databaseUrl,
    authToken: config.databaseAuthToken,
    dataDir: config.dataDir,
    countTokens: (message) => estimateStoredTokens(message, tokenizer),
  });
}

/**
 * What keeps the database from serving, null when nothing does: the storage first (data folder the
 * one the process started with, files writable, a small write taken — bounded), then a query.
 */
export async function databaseProblem(store: Store): Promise<string | null> {
  const problem = await store.storageProblem();
  if (problem !== null) return problem;
  return store.ping().then(
    () => null,
    (error: unknown) => `the database does not answer: ${(error as Error).message}`,
  );
}

/** The OpenAI client for the configured endpoint (or the sim model). */
export function createModelClient(baseURL: string, apiKey: string): OpenAI {
  return new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 10 * 60_000 });
}

type TenantLimitSettings = Pick<
  Config,
  | "tenantMaxRunningRuns"
  | "tenantMaxQueuedRuns"
  | "tenantRequestsPerSecond"
  | "tenantRequestBurst"
  | "tenantLimitOverrides"
>;

/** Each tenant's share from the configuration (the defaults for settings a caller leaves out). */
function tenantLimitsOf(config: Partial<TenantLimitSettings>): TenantLimitsConfig {
  return {
    defaults: {
      maxRunningRuns: config.tenantMaxRunningRuns ?? DEFAULT_TENANT_LIMITS.maxRunningRuns,
      maxQueuedRuns: config.tenantMaxQueuedRuns ?? DEFAULT_TENANT_LIMITS.maxQueuedRuns,
      requestsPerSecond: config.tenantRequestsPerSecond ?? DEFAULT_TENANT_LIMITS.requestsPerSecond,
      requestBurst: config.tenantRequestBurst ?? DEFAULT_TENANT_LIMITS.requestBurst,
    },
    overrides: config.tenantLimitOverrides ?? {},
  };
}

/** Wires the runtime: events persisted then published, jobs on the queue, breaker on the store given. */
export function buildRuntime(
  infra: Infrastructure,
  config: Pick<Config, "timeZone" | "searchUrl"> &
    Partial<TenantLimitSettings> &
    Partial<Pick<Config, "snapshotMaxBytes">> &
    Partial<Pick<Config, "anthropicApiKey" | "anthropicBaseUrl">>,
  options: { breaker?: { baseCooldownMs?: number; threshold?: number } } = {},
): Runtime {
  const deps: RuntimeDeps = {
    store: infra.store,
    model: infra.model,
    // Profiles on anthropic-messages call Anthropic with this key (unset: the model endpoint's origin).
    ...(config.anthropicApiKey
      ? {
          anthropic: {
            apiKey: config.anthropicApiKey,
            ...(config.anthropicBaseUrl ? { baseURL: config.anthropicBaseUrl } : {}),
          },
        }
      : {}),
    tools: createToolRegistry({ searchEndpoint: config.searchUrl }),
    breaker: createBreaker({ store: infra.breakerStore, ...options.breaker }),
    // Counted where emitted: each process's /metrics reports its own work only.
    events: createPersistingEventSink(infra.store, infra.bus, infra.metrics?.observe, infra.log),
    scheduler: createScheduler(infra.queue, {
      lastSeq: async (agentId) => (await infra.store.messages.last(agentId))?.seq ?? -1,
      tenantOf: async (threadId) => (await infra.store.threads.get(threadId))?.tenantId,
    }),
    lease: infra.lease,
    tokenizer,
    log: infra.log ?? silentLogger,
    ...(infra.metrics ? { metrics: infra.metrics.runtime } : {}),
    // Large messages are counted on a worker thread before their write transaction.
    counter: createMessageCounter(tokenizer),
    now: () => Date.now(),
    timeZone: config.timeZone,
    tenantLimits: tenantLimitsOf(config),
    ...(config.snapshotMaxBytes === undefined ? {} : { snapshotMaxBytes: config.snapshotMaxBytes }),
  };
  const coordinator = new Coordinator(deps);
  const runControl = new RunControl(deps, coordinator);
  return { deps, coordinator, runControl };
}

/** Starts this process's job worker over the infrastructure (both modes use the same settings). */
export function startProcessWorker(
  infra: Infrastructure,
  runtime: Runtime,
  config: Pick<Config, "workerConcurrency" | "leaseMs">,
  workerId?: string,
): Promise<RunningWorker> {
  return startWorker({
    deps: runtime.deps,
    coordinator: runtime.coordinator,
    runControl: runtime.runControl,
    queue: infra.queue,
    bus: infra.bus,
    registry: infra.workers,
    concurrency: { agent: config.workerConcurrency, compaction: 2 },
    leaseMs: config.leaseMs,
    ...(workerId ? { workerId } : {}),
  });
}

/**
 * The reconciler and event retention of this process. In embedded mode the first pass is immediate
 * (a fresh process: whatever was queued before is gone); in distributed mode one instance at a time
 * reconciles, and a Redis that came back empty makes the next pass immediate.
 */
export function startProcessMaintenance(
  runtime: Runtime,
  config: Pick<Config, "reconcileMs" | "staleMs" | "leaseMs" | "eventMaxAgeMs" | "eventsPerThread">,
  options: { embedded: boolean; jobsLost?: () => Promise<boolean> },
) {
  return startMaintenance(runtime.deps, runtime.runControl, runtime.coordinator, {
    intervalMs: config.reconcileMs,
    staleAfterMs: config.staleMs ?? Math.max(5_000, 2 * config.leaseMs),
    retention: {
      ...(config.eventMaxAgeMs !== undefined ? { maxAgeMs: config.eventMaxAgeMs } : {}),
      ...(config.eventsPerThread !== undefined ? { keepPerThread: config.eventsPerThread } : {}),
    },
    immediateFirstPass: options.embedded,
    exclusive: !options.embedded,
    ...(options.jobsLost ? { jobsLost: options.jobsLost } : {}),
  });
}

/** Queue, worker and breaker figures for the operations view, scoped to a tenant's agents. */
export async function collectOps(
  infra: Infrastructure,
  runtime: Runtime,
  tenantId: string,
): Promise<Omit<OpsView, "failures" | "mode">> {
  const now = Date.now();
  if (!infra.queue.available()) {
    throw new LongrunError("unavailable", "the job queue (Redis) is unreachable; queue figures are unknown");
  }
  const [stats, workers, threads] = await Promise.all([
    infra.queue.stats(),
    infra.workers.list(now),
    infra.store.threads.list(tenantId),
  ]).catch((error: unknown) => {
    if (isRedisUnavailable(error)) throw new LongrunError("unavailable", "Redis is unreachable");
    throw error;
  });
  const breakers: OpsView["breakers"] = [];
  for (const thread of threads.slice(0, 50)) {
    for (const agent of await infra.store.agents.listByThread(thread.id)) {
      const snapshot = await runtime.deps.breaker.state(agent.id);
      if (snapshot.state === "closed" && snapshot.failures === 0) continue;
      breakers.push({
        agentId: agent.id,
        threadId: thread.id,
        state: snapshot.state,
        failures: snapshot.failures,
        cooldownMs: snapshot.cooldownMs,
        openUntil: snapshot.openUntil,
      });
    }
  }
  const mine = new Set(threads.map((thread) => thread.id));
  const stuckRuns = (await infra.store.runs.listActive())
    .filter((run) => run.status === "stuck" && mine.has(run.threadId))
    .map((run) => ({
      runId: run.id,
      threadId: run.threadId,
      agentId: run.agentId,
      reason: run.error?.message ?? "stuck",
      startedAt: run.startedAt,
    }));
  return {
    workers,
    stuckRuns,
    queues: Object.entries(stats).map(([name, counts]) => ({
      name,
      waiting: counts.waiting,
      active: counts.active,
      delayed: counts.delayed,
      failed: counts.failed,
      oldestWaitMs: counts.oldestWaitMs ?? 0,
    })),
    breakers,
  };
}
