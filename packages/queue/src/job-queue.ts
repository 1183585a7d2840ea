import type { JobInput, JobName, JobPayload, QueueName } from "./catalog.ts";

/** Options for one enqueue. */
export interface EnqueueOptions {
  /** Your own job id (letters, digits, `.`, `_`, `-`; not an integer); a UUID otherwise. */
  jobId?: string;
  delayMs?: number;
  /** Drop this job while another with the same key is waiting, delayed or active (catalog may set one). */
  dedupeKey?: string;
}

/** A job that is waiting, delayed or running. */
export interface LiveJob {
  id: string;
  name: JobName;
  payload: unknown;
  state: "waiting" | "delayed" | "active";
}

/** Result of an enqueue: the id of the job that will run (the existing one when deduplicated). */
export interface EnqueueResult {
  id: string;
  deduplicated: boolean;
}

/** What a handler gets besides its payload. */
export interface JobContext {
  jobId: string;
  name: JobName;
  /** 1 for the first try, 2 for the first retry, ... (re-queues after a shutdown or crash do not count). */
  attempt: number;
  /** Attempts the job has in all, from its retry policy (the catalog's, or the deployment's override). */
  maxAttempts: number;
  /**
   * True when this attempt is the last: a failure now fails the job for good, so the handler reports
   * it where users see it (a failed run) instead of counting on a retry. A job that must not retry at
   * all throws `UnrecoverableJobError`.
   */
  finalAttempt: boolean;
  /**
   * True when an earlier run of this same attempt was interrupted (its worker crashed, stalled or shut
   * down) and the job was handed out again: work it did before dying may already be visible.
   */
  redelivered: boolean;
  /** When the job became ready to run (enqueued, or its delay over; epoch ms), for queue-wait metrics. */
  readyAt?: number;
  /** Aborted on timeout, and on close once the grace period is over (the job is then re-queued). */
  signal: AbortSignal;
}

/** A handler for job `N`; its payload was validated against the catalog schema. */
export type JobHandler<N extends JobName> = (payload: JobPayload<N>, context: JobContext) => Promise<unknown>;

/** Handlers by job name; a job without a handler fails without retry. */
export type JobHandlers = { [N in JobName]?: JobHandler<N> };

/** Worker settings. */
export interface ProcessOptions {
  /** Parallel jobs per queue (one number for every queue, or per queue); default 1. */
  concurrency?: number | Partial<Record<QueueName, number>>;
}

/** Counts for one queue. `oldestWaitMs` is how long the oldest ready job has waited (null when none). */
export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  completed?: number;
  oldestWaitMs: number | null;
}

export type QueueStats = Record<QueueName, QueueCounts>;

/** What this handle's workers did with a job (jobs run by other processes are not reported). */
export type JobEvent =
  | { type: "active"; jobId: string; name: JobName; attempt: number }
  | { type: "completed"; jobId: string; name: JobName; attempt: number; result: unknown }
  | { type: "failed"; jobId: string; name: JobName; attempt: number; error: string; willRetry: boolean }
  | { type: "requeued"; jobId: string; name: JobName; attempt: number };

/** How a job ended, as seen by `waitForJob`. */
export type JobOutcome = { status: "completed"; result: unknown } | { status: "failed"; error: string };

/** Options for a graceful close. */
export interface CloseOptions {
  /** How long active jobs may keep running before they are aborted and re-queued (default 10 s). */
  graceMs?: number;
}

/** The job queue: the same contract for BullMQ (distributed) and in-process (embedded) mode. */
export interface JobQueue {
  readonly kind: "bullmq" | "in-process";
  /** False while the backing store is unreachable: callers fail fast instead of waiting on it. */
  available(): boolean;
  /** Validates the payload against the catalog (LongrunError "bad_request" if invalid) and enqueues it. */
  enqueue<N extends JobName>(name: N, payload: JobInput<N>, options?: EnqueueOptions): Promise<EnqueueResult>;
  /** Starts workers for every queue that has at least one handler; resolves once they take jobs. */
  process(handlers: JobHandlers, options?: ProcessOptions): Promise<void>;
  /** Removes a waiting or delayed job; false if it is active, finished or unknown. */
  remove(jobId: string): Promise<boolean>;
  /** Jobs waiting, delayed or running now, in any process sharing the backing store. */
  listLive(): Promise<LiveJob[]>;
  /** Removes the waiting and delayed jobs that match (never a running one); returns how many went. */
  removeWhere(match: (job: Pick<LiveJob, "name" | "payload">) => boolean): Promise<number>;
  stats(): Promise<QueueStats>;
  /**
   * Handlers of this handle running now: counted from the handler calls themselves, so a job whose end
   * the backing store could not record (a lost lock, keys gone with Redis) does not stay counted.
   */
  runningJobs(): number;
  /** Subscribes to this handle's worker events; returns the unsubscribe function. */
  onJobEvent(listener: (event: JobEvent) => void): () => void;
  /** Resolves when this handle's workers complete the job, or fail it for good. */
  waitForJob(jobId: string, options?: { timeoutMs?: number }): Promise<JobOutcome>;
  /** Stops taking jobs, lets active ones finish for `graceMs`, then aborts and re-queues the rest. */
  close(options?: CloseOptions): Promise<void>;
}
