export { CancelRegistry, CONTROL_CHANNEL, type ControlMessage } from "./cancel-registry.ts";
export { createJobHandlers, type WorkerEnv } from "./job-handlers.ts";
export { createQueueScheduler } from "./queue-scheduler.ts";
export { type RunningWorker, startWorker, type WorkerOptions } from "./start-worker.ts";
export {
  createMemoryWorkerRegistry,
  createRedisWorkerRegistry,
  type WorkerInfo,
  type WorkerRegistry,
  workerIdentity,
} from "./worker-registry.ts";
