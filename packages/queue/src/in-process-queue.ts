import { setMaxListeners } from "node:events";
import { LongrunError } from "@longrun/protocol";
import {
  type JobName,
  type PolicyOverrides,
  type QueueName,
  queueOf,
  resolvePolicy,
  retryDelay,
} from "./catalog.ts";
import { parseEnqueue } from "./enqueue-request.ts";
import { errorMessage } from "./errors.ts";
import { fairPriority } from "./fair-share.ts";
import { createJobEvents } from "./job-events.ts";
import type { JobHandlers, JobQueue, QueueCounts, QueueStats } from "./job-queue.ts";
import { runAttempt } from "./run-attempt.ts";

interface MemoryJob {
  id: string;
  name: JobName;
  queue: QueueName;
  payload: unknown;
  attemptsMade: number;
  /** Handed back after a shutdown cut its run short. */
  redelivered?: boolean;
  state: "waiting" | "delayed" | "active";
  readyAt: number;
  dedupeKey: string | undefined;
  /** Its tenant's fair share (see fair-share.ts): lower numbers are taken first. */
  fairnessKey: string | undefined;
  priority: number;
  /** Still counted in its tenant's queued jobs (until first taken or removed). */
  countedQueued: boolean;
  timer?: NodeJS.Timeout;
}

/** The jobs of the in-process adapter; several handles may share one (a restart inside one process). */
export interface InProcessJobStore {
  readonly jobs: Map<string, MemoryJob>;
  readonly ready: Record<QueueName, string[]>;
  readonly dedupe: Map<string, string>;
  /** Jobs per fairness key that were enqueued and never taken yet (fair-share.ts). */
  readonly queuedByKey: Map<string, number>;
  readonly finished: Record<QueueName, { completed: number; failed: number }>;
  readonly wakers: Set<() => void>;
}

/** Creates an empty job store for `createInProcessQueue({store})`. */
export function createInProcessJobStore(): InProcessJobStore {
  return {
    jobs: new Map(),
    ready: { agent: [], compaction: [] },
    dedupe: new Map(),
    queuedByKey: new Map(),
    finished: { agent: { completed: 0, failed: 0 }, compaction: { completed: 0, failed: 0 } },
    wakers: new Set(),
  };
}

export interface InProcessQueueOptions {
  /** Share a store between handles; by default the handle owns a fresh one. */
  store?: InProcessJobStore;
  policy?: PolicyOverrides;
}

/** The embedded-mode queue: same catalog, retries, dedupe and close semantics as BullMQ, in memory. */
export function createInProcessQueue(options: InProcessQueueOptions = {}): JobQueue {
  const store = options.store ?? createInProcessJobStore();
  const events = createJobEvents();
  const shutdown = new AbortController();
  // Every active job listens on it; more than 10 at once is expected, not a leak.
  setMaxListeners(0, shutdown.signal);
  const running = new Set<Promise<void>>();
  let handlers: JobHandlers = {};
  let concurrency: Record<QueueName, number> = { agent: 0, compaction: 0 };
  const active: Record<QueueName, number> = { agent: 0, compaction: 0 };
  let closed = false;

  const wakeAll = () => {
    for (const wake of [...store.wakers]) wake();
  };

  const makeReady = (job: MemoryJob, front = false) => {
    job.state = "waiting";
    job.readyAt = front ? job.readyAt : Date.now();
    const ready = store.ready[job.queue];
    if (front) {
      ready.unshift(job.id);
      return;
    }
    // Behind every job of the same or a better priority: FIFO within a priority, fair across tenants.
    let at = ready.length;
    while (at > 0 && (store.jobs.get(ready[at - 1] as string)?.priority ?? 0) > job.priority) at -= 1;
    ready.splice(at, 0, job.id);
  };

  const uncountQueued = (job: MemoryJob) => {
    if (!job.countedQueued || job.fairnessKey === undefined) return;
    job.countedQueued = false;
    const left = (store.queuedByKey.get(job.fairnessKey) ?? 1) - 1;
    if (left > 0) store.queuedByKey.set(job.fairnessKey, left);
    else store.queuedByKey.delete(job.fairnessKey);
  };

  const schedule = (job: MemoryJob, delayMs: number) => {
    if (delayMs <= 0) {
      makeReady(job);
      return;
    }
    job.state = "delayed";
    job.readyAt = Date.now() + delayMs;
    job.timer = setTimeout(() => {
      job.timer = undefined;
      makeReady(job);
      wakeAll();
    }, delayMs);
    job.timer.unref();
  };

  const forget = (job: MemoryJob) => {
    uncountQueued(job);
    store.jobs.delete(job.id);
    if (job.dedupeKey && store.dedupe.get(job.dedupeKey) === job.id) store.dedupe.delete(job.dedupeKey);
  };

  const execute = async (job: MemoryJob) => {
    const attempt = job.attemptsMade + 1;
    const policy = resolvePolicy(job.name, options.policy);
    events.emit({ type: "active", jobId: job.id, name: job.name, attempt });
    const outcome = await runAttempt({
      name: job.name,
      payload: job.payload,
      jobId: job.id,
      attempt,
      maxAttempts: policy.attempts,
      redelivered: job.redelivered ?? false,
      readyAt: job.readyAt,
      timeoutMs: policy.timeoutMs,
      handlers,
      shutdownSignal: shutdown.signal,
    });
    const base = { jobId: job.id, name: job.name, attempt };
    if (outcome.kind === "completed") {
      forget(job);
      store.finished[job.queue].completed += 1;
      events.emit({ type: "completed", ...base, result: outcome.result });
    } else if (outcome.kind === "requeue") {
      job.redelivered = true;
      makeReady(job, true);
      events.emit({ type: "requeued", ...base });
    } else {
      job.attemptsMade = attempt;
      const willRetry = !outcome.unrecoverable && attempt < policy.attempts;
      if (willRetry) schedule(job, retryDelay(policy.backoffMs, attempt));
      else {
        forget(job);
        store.finished[job.queue].failed += 1;
      }
      events.emit({ type: "failed", ...base, error: errorMessage(outcome.error), willRetry });
    }
  };

  const pump = () => {
    if (closed) return;
    for (const queue of ["agent", "compaction"] as const) {
      const ready = store.ready[queue];
      while (active[queue] < concurrency[queue] && ready.length > 0) {
        const job = store.jobs.get(ready.shift() as string);
        if (job?.state !== "waiting") continue;
        job.state = "active";
        uncountQueued(job);
        active[queue] += 1;
        const task = execute(job).finally(() => {
          active[queue] -= 1;
          running.delete(task);
          // Another handle may be free to take what this one re-queued.
          wakeAll();
        });
        running.add(task);
      }
    }
  };

  return {
    kind: "in-process",

    available: () => true,

    async enqueue(name, payload, enqueueOptions) {
      const request = parseEnqueue(name, payload, enqueueOptions);
      const existingByKey = request.dedupeKey ? store.dedupe.get(request.dedupeKey) : undefined;
      if (existingByKey) return { id: existingByKey, deduplicated: true };
      if (store.jobs.has(request.jobId)) return { id: request.jobId, deduplicated: true };
      const key = request.fairnessKey;
      const queuedOfKey = key === undefined ? 0 : (store.queuedByKey.get(key) ?? 0);
      const job: MemoryJob = {
        id: request.jobId,
        name: request.name,
        queue: request.definition.queue,
        payload: request.payload,
        attemptsMade: 0,
        state: "waiting",
        readyAt: Date.now(),
        dedupeKey: request.dedupeKey,
        fairnessKey: key,
        priority: fairPriority(queuedOfKey),
        countedQueued: key !== undefined,
      };
      if (key !== undefined) store.queuedByKey.set(key, queuedOfKey + 1);
      store.jobs.set(job.id, job);
      if (job.dedupeKey) store.dedupe.set(job.dedupeKey, job.id);
      schedule(job, request.delayMs);
      wakeAll();
      return { id: job.id, deduplicated: false };
    },

    async process(nextHandlers, processOptions = {}) {
      if (closed) throw new LongrunError("conflict", "process() after close()");
      handlers = nextHandlers;
      const wanted = processOptions.concurrency ?? 1;
      const hasHandler = (queue: QueueName) =>
        Object.keys(nextHandlers).some((name) => queueOf(name) === queue);
      const limit = (queue: QueueName) =>
        hasHandler(queue) ? (typeof wanted === "number" ? wanted : (wanted[queue] ?? 1)) : 0;
      concurrency = { agent: limit("agent"), compaction: limit("compaction") };
      store.wakers.add(pump);
      pump();
    },

    async remove(jobId) {
      const job = store.jobs.get(jobId);
      if (!job || job.state === "active") return false;
      if (job.timer) clearTimeout(job.timer);
      const ready = store.ready[job.queue];
      const index = ready.indexOf(jobId);
      if (index >= 0) ready.splice(index, 1);
      forget(job);
      return true;
    },

    async listLive() {
      return [...store.jobs.values()].map((job) => ({
        id: job.id,
        name: job.name,
        payload: job.payload,
        state: job.state,
      }));
    },

    async removeWhere(match) {
      let removed = 0;
      for (const job of [...store.jobs.values()]) {
        if (job.state === "active" || !match({ name: job.name, payload: job.payload })) continue;
        if (await this.remove(job.id)) removed += 1;
      }
      return removed;
    },

    async stats() {
      const now = Date.now();
      const counts = (queue: QueueName): QueueCounts => {
        const jobs = [...store.jobs.values()].filter((job) => job.queue === queue);
        const waiting = jobs.filter((job) => job.state === "waiting");
        const oldest = Math.min(...waiting.map((job) => job.readyAt));
        return {
          waiting: waiting.length,
          active: jobs.filter((job) => job.state === "active").length,
          delayed: jobs.filter((job) => job.state === "delayed").length,
          failed: store.finished[queue].failed,
          completed: store.finished[queue].completed,
          oldestWaitMs: waiting.length > 0 ? Math.max(0, now - oldest) : null,
        };
      };
      const stats: QueueStats = { agent: counts("agent"), compaction: counts("compaction") };
      return stats;
    },

    runningJobs: () => running.size,
    onJobEvent: (listener) => events.on(listener),
    waitForJob: (jobId, waitOptions) => events.waitForJob(jobId, waitOptions?.timeoutMs),

    async close(closeOptions = {}) {
      if (closed) return;
      closed = true;
      store.wakers.delete(pump);
      const graceMs = closeOptions.graceMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, graceMs);
      });
      await Promise.race([Promise.allSettled([...running]), graceOver]);
      clearTimeout(timer);
      shutdown.abort(new Error("queue closing"));
      await Promise.allSettled([...running]);
      if (!options.store) {
        for (const job of store.jobs.values()) if (job.timer) clearTimeout(job.timer);
      }
      wakeAll();
    },
  };
}
