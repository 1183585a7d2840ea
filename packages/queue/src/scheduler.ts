import type { CompactJob, PrepareJob, StepJob } from "./catalog.ts";
import type { JobQueue } from "./job-queue.ts";
import { activeTraceCarrier } from "./trace-context.ts";

/** Options of one step enqueue. */
export interface StepOptions {
  delayMs?: number;
  /** Drops this step at enqueue while a job with the same id exists (resume, approval). */
  jobId?: string;
  /** The agent's last seq when the caller knows it (else it is read with `lastSeq`). */
  expectSeq?: number;
}

/** The jobs the runtime asks for, on top of a job queue (BullMQ or in-process). */
export interface Scheduler {
  /** Enqueues a step; resolves to the id of the job that will run it. */
  step(job: StepJob, options?: StepOptions): Promise<string>;
  /** Enqueues a compaction; resolves to the id of the job that will run it (an existing one when deduplicated). */
  compact(job: CompactJob): Promise<string>;
  /** A background summary of the agent's older prefix (dropped while one is queued or running). */
  prepareSummary(job: PrepareJob): Promise<void>;
  /** Drops queued (not running) jobs of a run; returns how many went. */
  cancelRun(runId: string): Promise<number>;
  /** Agents that have a job waiting, delayed or running right now (the reconciler's liveness view). */
  liveAgents(): Promise<Set<string>>;
  /** False while the queue is unreachable: new work is refused at once instead of hanging. */
  available(): boolean;
}

/** What the scheduler needs of a queue. */
export type SchedulingQueue = Pick<JobQueue, "enqueue" | "removeWhere" | "listLive" | "available">;

/**
 * The one place jobs are enqueued. Each step job carries the log position it expects (`expectSeq`), so
 * a duplicate that arrives after the agent moved on is recognized as stale; explicit job ids are used
 * only where a duplicate must be dropped at enqueue (resume, approval).
 */
export function createScheduler(
  queue: SchedulingQueue,
  log: {
    lastSeq(agentId: string): Promise<number>;
    /** The thread's tenant, whose fair share of the workers its jobs use (fair-share.ts). */
    tenantOf?(threadId: string): Promise<string | undefined>;
  },
): Scheduler {
  // A thread never changes tenant: remembered, within a bound.
  const tenants = new Map<string, string | undefined>();
  const tenantOf = async (job: { threadId: string; tenantId?: string | undefined }) => {
    if (job.tenantId !== undefined || !log.tenantOf) return job.tenantId;
    if (tenants.has(job.threadId)) return tenants.get(job.threadId);
    const tenant = await log.tenantOf(job.threadId);
    if (tenants.size >= 10_000) tenants.clear();
    tenants.set(job.threadId, tenant);
    return tenant;
  };
  /**
   * The job stamped with its thread's tenant (when known), whose fair share it uses, and with the trace
   * context of the caller (a request, a step), which the worker that takes the job continues.
   */
  const withTenant = async <Job extends { threadId: string; tenantId?: string | undefined }>(job: Job) => {
    const tenantId = await tenantOf(job);
    const stamped = { ...job, ...activeTraceCarrier() };
    return tenantId === undefined ? stamped : { ...stamped, tenantId };
  };
  return {
    async step(job, options = {}) {
      const expectSeq = options.expectSeq ?? (await log.lastSeq(job.agentId));
      const { id } = await queue.enqueue(
        "agent.step",
        { ...(await withTenant(job)), expectSeq },
        {
          ...(options.jobId ? { jobId: options.jobId } : {}),
          ...(options.delayMs ? { delayMs: options.delayMs } : {}),
        },
      );
      return id;
    },
    async compact(job) {
      return (await queue.enqueue("agent.compact", await withTenant(job))).id;
    },
    async prepareSummary(job) {
      await queue.enqueue("agent.prepare-summary", await withTenant(job));
    },
    cancelRun(runId) {
      // Running jobs are aborted through the control channel; queued ones go now, so a delayed step
      // (a breaker wait) does not linger after the run ended.
      return queue.removeWhere((job) => payloadField(job.payload, "runId") === runId);
    },
    available: () => queue.available(),
    async liveAgents() {
      // A background summary does not move the agent: it is not a sign of life.
      const agents = (await queue.listLive())
        .filter((job) => job.name !== "agent.prepare-summary")
        .map((job) => payloadField(job.payload, "agentId"));
      return new Set(agents.filter((agentId): agentId is string => agentId !== undefined));
    },
  };
}

/** A string field of a job payload read from the queue (every catalog payload names its agent and run). */
function payloadField(payload: unknown, field: "runId" | "agentId"): string | undefined {
  const value =
    typeof payload === "object" && payload !== null ? (payload as Record<string, unknown>)[field] : undefined;
  return typeof value === "string" ? value : undefined;
}
