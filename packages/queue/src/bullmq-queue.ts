import { setMaxListeners } from "node:events";
import { LongrunError } from "@longrun/protocol";
import {
  type ConnectionOptions,
  type Job,
  Queue,
  type RedisOptions,
  UnrecoverableError,
  WaitingError,
  Worker,
} from "bullmq";
import { listLiveJobs, queueStats, removeQueued, removeQueuedWhere } from "./bullmq-inspect.ts";
import {
  type JobDefinition,
  type JobName,
  jobCatalog,
  type PolicyOverrides,
  type QueueName,
  QueueName as QueueNames,
  queueOf,
  resolvePolicy,
} from "./catalog.ts";
import { parseEnqueue } from "./enqueue-request.ts";
import { errorMessage } from "./errors.ts";
import { fairPriority } from "./fair-share.ts";
import { createJobEvents } from "./job-events.ts";
import type { JobHandlers, JobQueue } from "./job-queue.ts";
import { createRedisHealth, isRedisUnavailable, type RedisHealth } from "./redis-health.ts";
import { runAttempt } from "./run-attempt.ts";

/** Settings of the BullMQ adapter. Defaults suit crash recovery within seconds. */
export interface BullmqQueueOptions {
  /** A redis:// URL or ioredis options; every Queue and Worker opens its own connections from it. */
  connection: string | RedisOptions;
  /** Key prefix of this deployment (tests use a unique one); keys are `${prefix}:${queue}:...`. */
  prefix: string;
  policy?: PolicyOverrides;
  /** A worker's lock on a job expires this long after its last renewal (it renews at half). Default 15 s. */
  lockDurationMs?: number;
  /**
   * How often workers look for jobs whose lock expired (a crashed worker's). Default 5 s. Use one value
   * per deployment: each check takes a deployment-wide throttle key for this long, so a worker with a
   * longer interval delays recovery for all. Recovery after a crash takes about lockDuration + interval.
   */
  stalledIntervalMs?: number;
  /** Times a job may be recovered from a stall before it fails. Default 3. */
  maxStalledCount?: number;
  /** Finished jobs kept in Redis for inspection. Defaults 1,000 completed, 5,000 failed. */
  keepCompleted?: number;
  keepFailed?: number;
  onError?: (error: Error) => void;
  /** Connection state of this process; errors are reported there once per outage, not per retry. */
  health?: RedisHealth;
}

type AnyJob = Job<unknown, unknown, string>;

/** The tenant a job counts against, from its catalog entry (undefined: none). */
function fairnessKeyOf(job: AnyJob): string | undefined {
  const name = job.name as JobName;
  if (queueOf(name) === undefined) return undefined;
  const definition = jobCatalog[name] as JobDefinition;
  return definition.fairnessKey?.(job.data);
}

const REQUEUE_MARK = { requeued: true };

function isRequeueMark(progress: unknown): boolean {
  return (
    typeof progress === "object" &&
    progress !== null &&
    (progress as { requeued?: unknown }).requeued === true
  );
}

/** The distributed-mode queue: one BullMQ Queue and Worker per queue name. */
export function createBullmqQueue(options: BullmqQueueOptions): JobQueue {
  const connection: ConnectionOptions =
    typeof options.connection === "string" ? { url: options.connection } : options.connection;
  const health = options.health ?? createRedisHealth();
  const onError =
    options.onError ??
    ((error: Error) => {
      if (isRedisUnavailable(error)) health.error("queue", error);
      // One line, no stack: after Redis lost its data, every job that was running ends with "missing
      // key" here, and the reconciler has already issued its work again.
      else console.error(`[longrun/queue] ${error.message.split("\n")[0]}`);
    });
  // Producers fail fast while Redis is unreachable (no offline queue): a request that would enqueue
  // gets a clear "unavailable" instead of hanging until Redis returns.
  const producer: ConnectionOptions = { ...connection, enableOfflineQueue: false, maxRetriesPerRequest: 1 };
  const producerUp = new Map<QueueName, boolean>();
  const keep = {
    removeOnComplete: { count: options.keepCompleted ?? 1_000 },
    removeOnFail: { count: options.keepFailed ?? 5_000 },
  };
  const queues = Object.fromEntries(
    QueueNames.options.map((name) => {
      const queue = new Queue<unknown, unknown, string>(name, {
        connection: producer,
        prefix: options.prefix,
      });
      queue.on("error", onError);
      queue.getBackend().connection.client.then(
        (client) => {
          producerUp.set(name, client.status === "ready");
          client.on("ready", () => {
            producerUp.set(name, true);
            health.ready("queue");
          });
          client.on("close", () => producerUp.set(name, false));
        },
        () => undefined,
      );
      return [name, queue];
    }),
  ) as Record<QueueName, Queue<unknown, unknown, string>>;
  const events = createJobEvents();
  const shutdown = new AbortController();
  // Every active job listens on it; more than 10 at once is expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const workers: Worker<unknown, unknown, string>[] = [];
  const running = new Set<Promise<unknown>>();
  const attempts = new Map<string, number>();
  let closing: Promise<void> | undefined;

  // Jobs per tenant enqueued and never taken yet, shared by every process of the deployment (one hash;
  // it expires an hour after its last change, so a count left behind by a lost job heals when idle).
  const queuedKey = `${options.prefix}:fair-share:queued`;
  const countQueued = async (tenant: string, by: 1 | -1): Promise<number> => {
    const client = await queues.agent.getBackend().connection.client;
    const results = await client
      .multi()
      .runCommand("hincrby", [queuedKey, tenant, by])
      .runCommand("expire", [queuedKey, 3_600])
      .exec();
    const count = Number(results?.[0]?.[1]);
    if (!Number.isFinite(count)) throw results?.[0]?.[0] ?? new Error("fair share count failed");
    return count;
  };
  /** A job leaves its tenant's queued count the first time a worker takes it, or when it is removed. */
  const leaveQueued = async (job: AnyJob) => {
    const tenant = fairnessKeyOf(job);
    if (tenant === undefined || job.attemptsMade > 0 || job.stalledCounter > 0 || isRequeueMark(job.progress))
      return;
    // Best effort: a count left high only lowers this tenant's priority until the hash expires (an hour
    // after its last change); the job itself goes on.
    await countQueued(tenant, -1).catch(() => undefined);
  };

  const processJob = async (handlers: JobHandlers, job: AnyJob, token: string | undefined) => {
    const jobId = job.id as string;
    const name = job.name as JobName;
    const attempt = job.attemptsMade + 1;
    await leaveQueued(job);
    attempts.set(jobId, attempt);
    events.emit({ type: "active", jobId, name, attempt });
    const outcome = await runAttempt({
      name: job.name,
      payload: job.data,
      jobId,
      attempt,
      // The job's own count, fixed when it was added (a policy changed since does not apply to it).
      maxAttempts: job.opts.attempts ?? 1,
      // A stall (crashed or frozen worker) or our own shutdown hand-back: the earlier run may have done work.
      redelivered: job.stalledCounter > 0 || isRequeueMark(job.progress),
      readyAt: job.timestamp + (job.opts.delay ?? 0),
      timeoutMs: resolvePolicy(name, options.policy).timeoutMs,
      handlers,
      shutdownSignal: shutdown.signal,
    });
    if (outcome.kind === "completed") return outcome.result;
    if (outcome.kind === "failed") {
      throw outcome.unrecoverable ? new UnrecoverableError(outcome.error.message) : outcome.error;
    }
    // Hand the job back now rather than waiting for its lock to expire; if this fails (Redis gone),
    // the lock still expires and another worker's stall check re-queues it. The progress mark tells
    // the next worker that this run was cut short.
    await job.updateProgress(REQUEUE_MARK).catch(() => undefined);
    await job.moveToWait(token);
    attempts.delete(jobId);
    events.emit({ type: "requeued", jobId, name, attempt });
    throw new WaitingError();
  };

  const startWorker = async (queueName: QueueName, handlers: JobHandlers, concurrency: number) => {
    const worker = new Worker<unknown, unknown, string>(
      queueName,
      (job, token) => {
        const task = processJob(handlers, job, token);
        running.add(task);
        return task.finally(() => running.delete(task));
      },
      {
        connection,
        prefix: options.prefix,
        concurrency,
        lockDuration: options.lockDurationMs ?? 15_000,
        stalledInterval: options.stalledIntervalMs ?? 5_000,
        maxStalledCount: options.maxStalledCount ?? 3,
        ...keep,
      },
    );
    worker.on("error", onError);
    worker.on("completed", (job, result) => {
      const jobId = job.id as string;
      const attempt = attempts.get(jobId) ?? job.attemptsMade;
      attempts.delete(jobId);
      events.emit({ type: "completed", jobId, name: job.name as JobName, attempt, result });
    });
    worker.on("failed", (job, error) => {
      if (!job?.id) return;
      const attempt = attempts.get(job.id) ?? job.attemptsMade;
      attempts.delete(job.id);
      const willRetry =
        error.name !== "UnrecoverableError" && job.attemptsMade < (job.opts.attempts ?? 1) && !job.finishedOn;
      const name = job.name as JobName;
      events.emit({ type: "failed", jobId: job.id, name, attempt, error: errorMessage(error), willRetry });
    });
    workers.push(worker);
    await worker.waitUntilReady();
  };

  async function addJob(request: ReturnType<typeof parseEnqueue>) {
    const queue = queues[request.definition.queue];
    const policy = resolvePolicy(request.name, options.policy);
    // BullMQ answers a duplicate custom id with that id, so only a look-up tells them apart (racy, best effort).
    const existed = request.explicitJobId && (await queue.getJob(request.jobId)) !== undefined;
    const tenant = existed ? undefined : request.fairnessKey;
    // Every job has a priority: BullMQ takes jobs without one before all prioritized jobs.
    const priority = tenant === undefined ? 1 : fairPriority((await countQueued(tenant, 1)) - 1);
    const job = await queue.add(request.name, request.payload, {
      priority,
      jobId: request.jobId,
      delay: request.delayMs > 0 ? request.delayMs : undefined,
      attempts: policy.attempts,
      backoff: { type: "exponential", delay: policy.backoffMs },
      deduplication: request.dedupeKey ? { id: request.dedupeKey } : undefined,
      ...keep,
    });
    const id = job.id as string;
    const deduplicated = existed || id !== request.jobId;
    if (deduplicated && tenant !== undefined) await countQueued(tenant, -1);
    return { id, deduplicated };
  }

  return {
    kind: "bullmq",

    available() {
      return health.up && QueueNames.options.every((name) => producerUp.get(name) === true);
    },

    async enqueue(name, payload, enqueueOptions) {
      const request = parseEnqueue(name, payload, enqueueOptions);
      try {
        return await addJob(request);
      } catch (error) {
        if (!isRedisUnavailable(error)) throw error;
        throw new LongrunError("unavailable", "the job queue (Redis) is unreachable; try again shortly");
      }
    },

    async process(handlers, processOptions = {}) {
      if (closing || workers.length > 0) {
        throw new LongrunError("conflict", "process() may be called once, before close()");
      }
      const wanted = processOptions.concurrency ?? 1;
      const started: Promise<void>[] = [];
      for (const queueName of QueueNames.options) {
        const hasHandler = Object.keys(handlers).some((name) => queueOf(name) === queueName);
        if (!hasHandler) continue;
        const concurrency = typeof wanted === "number" ? wanted : (wanted[queueName] ?? 1);
        started.push(startWorker(queueName, handlers, concurrency));
      }
      await Promise.all(started);
    },

    remove: (jobId) => removeQueued(queues, jobId, leaveQueued),
    listLive: () => listLiveJobs(queues),
    removeWhere: (match) => removeQueuedWhere(queues, match, leaveQueued),
    stats: () => queueStats(queues),

    runningJobs: () => running.size,
    onJobEvent: (listener) => events.on(listener),
    waitForJob: (jobId, waitOptions) => events.waitForJob(jobId, waitOptions?.timeoutMs),

    close(closeOptions = {}) {
      closing ??= (async () => {
        // Worker.close() stops fetching and waits for the active jobs; it cannot be forced later,
        // so the grace period is ours: after it, the shutdown signal makes every job hand itself back.
        const workersClosed = Promise.allSettled(workers.map((worker) => worker.close()));
        let timer: NodeJS.Timeout | undefined;
        const graceOver = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, closeOptions.graceMs ?? 10_000);
        });
        await Promise.race([Promise.allSettled([...running]), graceOver]);
        clearTimeout(timer);
        shutdown.abort(new Error("queue closing"));
        await workersClosed;
        await Promise.allSettled(Object.values(queues).map((queue) => queue.close()));
      })();
      return closing;
    },
  };
}
