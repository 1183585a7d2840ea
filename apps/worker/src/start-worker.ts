import { errorFields } from "@longrun/protocol";
import {
  type Bus,
  CancelRegistry,
  DEFAULT_LEASE_MS,
  type JobQueue,
  type WorkerRegistry,
  workerIdentity,
} from "@longrun/queue";
import { type Coordinator, createJobHandlers, type RunControl, type RuntimeDeps } from "@longrun/runtime";

export interface WorkerOptions {
  deps: RuntimeDeps;
  coordinator: Coordinator;
  runControl: RunControl;
  queue: JobQueue;
  bus: Bus;
  registry: WorkerRegistry;
  concurrency?: { agent?: number; compaction?: number };
  leaseMs?: number;
  workerId?: string;
}

export interface RunningWorker {
  id: string;
  /** Graceful: stop taking jobs, let active ones finish for `graceMs`, re-queue the rest. */
  close(graceMs?: number): Promise<void>;
}

/**
 * A worker process's shell: the runtime's job handlers on the queue, cancels from the control channel,
 * and a heartbeat in the worker registry. Everything a job does lives in packages.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const identity = workerIdentity(options.workerId);
  const cancels = new CancelRegistry();
  await cancels.start(options.bus);
  const log = options.deps.log.child({ workerId: identity.id });
  // The handlers running now, not a tally of job events: BullMQ emits neither "completed" nor "failed"
  // for a job whose end it could not record (its lock lost, its keys gone with Redis), and the tally
  // kept such jobs forever (7 on an idle worker). The registry only feeds the operations view: a failed
  // beat is retried by the next one, and said once when beats start failing and once when they pass again.
  let beating = true;
  const beat = () =>
    options.registry
      .beat({ ...identity, lastSeenAt: Date.now(), activeJobs: options.queue.runningJobs() })
      .then(
        () => {
          if (!beating) log.info({ heartbeat: "ok" }, "worker heartbeat registered again");
          beating = true;
        },
        (error: unknown) => {
          if (beating) log.warn({ ...errorFields(error), heartbeat: "failing" }, "worker heartbeat failed");
          beating = false;
        },
      );
  await beat();
  const timer = setInterval(beat, 5_000);
  timer.unref();
  const handlers = createJobHandlers({
    deps: options.deps,
    coordinator: options.coordinator,
    runControl: options.runControl,
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    track: (runId, signal) => cancels.track(runId, signal),
  });
  await options.queue.process(handlers, {
    concurrency: { agent: options.concurrency?.agent ?? 4, compaction: options.concurrency?.compaction ?? 2 },
  });
  log.info({ concurrency: options.concurrency }, "worker started: taking jobs");
  return {
    id: identity.id,
    async close(graceMs = 10_000) {
      clearInterval(timer);
      await options.queue.close({ graceMs });
      await cancels.close();
      // Best effort at shutdown: an entry left behind ages out of the registry by its last beat.
      await options.registry.remove(identity.id).catch(() => undefined);
    },
  };
}
