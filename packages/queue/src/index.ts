export { type BullmqQueueOptions, createBullmqQueue } from "./bullmq-queue.ts";
export { type Bus, type BusOptions, createMemoryBus, createRedisBus } from "./bus.ts";
export {
  AgentCompactPayload,
  AgentStepPayload,
  type CompactJob,
  type JobCatalog,
  type JobDefinition,
  type JobInput,
  type JobName,
  type JobPayload,
  jobCatalog,
  jobNames,
  type PolicyOverrides,
  type PrepareJob,
  QueueName,
  queueOf,
  type RetryPolicy,
  resolvePolicy,
  type StepJob,
} from "./catalog.ts";
export { CancelRegistry, publishCancel } from "./control-channel.ts";
export { JobTimeoutError, UnrecoverableJobError } from "./errors.ts";
export {
  createInProcessJobStore,
  createInProcessQueue,
  type InProcessJobStore,
  type InProcessQueueOptions,
} from "./in-process-queue.ts";
export type {
  CloseOptions,
  EnqueueOptions,
  EnqueueResult,
  JobContext,
  JobEvent,
  JobHandler,
  JobHandlers,
  JobOutcome,
  JobQueue,
  LiveJob,
  ProcessOptions,
  QueueCounts,
  QueueStats,
} from "./job-queue.ts";
export {
  createMemoryLease,
  createRedisLease,
  DEFAULT_LEASE_MS,
  type Lease,
  type LeaseHandle,
} from "./lease.ts";
export { type KeepLeaseOptions, keepLease, type LeaseKeeper } from "./lease-keeper.ts";
export { createRedisHealth, isRedisUnavailable, type RedisHealth } from "./redis-health.ts";
export { createScheduler, type Scheduler, type SchedulingQueue, type StepOptions } from "./scheduler.ts";
export { activeTraceCarrier, traceContextOf } from "./trace-context.ts";
export {
  createMemoryWorkerRegistry,
  createRedisWorkerRegistry,
  type WorkerInfo,
  type WorkerRegistry,
  workerIdentity,
} from "./worker-registry.ts";
