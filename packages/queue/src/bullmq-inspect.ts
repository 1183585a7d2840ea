import type { Job, Queue } from "bullmq";
import type { JobName, QueueName } from "./catalog.ts";
import type { LiveJob, QueueCounts, QueueStats } from "./job-queue.ts";

/** The BullMQ queues of one deployment, by name. */
export type BullmqQueues = Record<QueueName, Queue<unknown, unknown, string>>;

/** Told of each job removed before it ran to the end (its tenant's queued count goes down). */
type OnRemoved = (job: Job<unknown, unknown, string>) => Promise<void>;

/** Removes a waiting or delayed job; false if it is active, finished or unknown. */
export async function removeQueued(
  queues: BullmqQueues,
  jobId: string,
  onRemoved: OnRemoved,
): Promise<boolean> {
  for (const queue of Object.values(queues)) {
    const job = await queue.getJob(jobId);
    if (!job) continue;
    const state = await job.getState();
    if (state !== "waiting" && state !== "delayed" && state !== "prioritized") return false;
    if ((await queue.remove(jobId)) !== 1) return false;
    await onRemoved(job);
    return true;
  }
  return false;
}

/** Jobs waiting, delayed or running now, in any process of the deployment. */
export async function listLiveJobs(queues: BullmqQueues): Promise<LiveJob[]> {
  const live: LiveJob[] = [];
  for (const queue of Object.values(queues)) {
    for (const [state, types] of [
      ["waiting", ["wait", "prioritized"]],
      ["delayed", ["delayed"]],
      ["active", ["active"]],
    ] as const) {
      for (const job of await queue.getJobs([...types])) {
        if (!job?.id) continue;
        live.push({ id: job.id, name: job.name as JobName, payload: job.data, state });
      }
    }
  }
  return live;
}

/** Removes the waiting and delayed jobs that match (never a running one); returns how many went. */
export async function removeQueuedWhere(
  queues: BullmqQueues,
  match: (job: Pick<LiveJob, "name" | "payload">) => boolean,
  onRemoved: OnRemoved,
): Promise<number> {
  let removed = 0;
  for (const queue of Object.values(queues)) {
    for (const job of await queue.getJobs(["wait", "prioritized", "delayed"])) {
      if (!job?.id || !match({ name: job.name as JobName, payload: job.data })) continue;
      // A job that started meanwhile cannot be removed (remove answers 0); it finds its run finished.
      if ((await queue.remove(job.id)) !== 1) continue;
      await onRemoved(job);
      removed += 1;
    }
  }
  return removed;
}

/** Per-queue counts, and how long the oldest ready job has waited. */
export async function queueStats(queues: BullmqQueues): Promise<QueueStats> {
  const now = Date.now();
  const counts = async (queue: Queue<unknown, unknown, string>): Promise<QueueCounts> => {
    const raw = await queue.getJobCounts(
      "waiting",
      "prioritized",
      "active",
      "delayed",
      "failed",
      "completed",
    );
    // Every job has a priority (fair share), so the ready ones are in "prioritized", ordered by priority:
    // the oldest of its first few stands for the longest wait.
    const ready = [
      ...(await queue.getJobs(["wait"], 0, 0, true)),
      ...(await queue.getJobs(["prioritized"], 0, 9, true)),
    ].filter((job) => job !== undefined);
    const readyAt =
      ready.length > 0 ? Math.min(...ready.map((job) => job.timestamp + (job.delay ?? 0))) : undefined;
    return {
      waiting: (raw.waiting ?? 0) + (raw.prioritized ?? 0),
      active: raw.active ?? 0,
      delayed: raw.delayed ?? 0,
      failed: raw.failed ?? 0,
      completed: raw.completed ?? 0,
      oldestWaitMs: readyAt === undefined ? null : Math.max(0, now - readyAt),
    };
  };
  return { agent: await counts(queues.agent), compaction: await counts(queues.compaction) };
}
