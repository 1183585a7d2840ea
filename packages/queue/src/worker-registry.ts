import { hostname } from "node:os";
import type { OpsView } from "@longrun/protocol";
import type { Redis } from "ioredis";

export type WorkerInfo = OpsView["workers"][number];

/** Workers announce themselves every few seconds; the operations view lists those seen recently. */
export interface WorkerRegistry {
  beat(info: WorkerInfo): Promise<void>;
  remove(id: string): Promise<void>;
  list(now: number): Promise<WorkerInfo[]>;
}

const STALE_MS = 15_000;

export function createMemoryWorkerRegistry(): WorkerRegistry {
  const workers = new Map<string, WorkerInfo>();
  return {
    async beat(info) {
      workers.set(info.id, info);
    },
    async remove(id) {
      workers.delete(id);
    },
    async list(now) {
      return [...workers.values()].filter((worker) => now - worker.lastSeenAt < STALE_MS);
    },
  };
}

export function createRedisWorkerRegistry(redis: Redis, prefix: string): WorkerRegistry {
  const key = `${prefix}:workers`;
  return {
    async beat(info) {
      await redis.hset(key, info.id, JSON.stringify(info));
    },
    async remove(id) {
      await redis.hdel(key, id);
    },
    async list(now) {
      const all = await redis.hgetall(key);
      const workers = Object.values(all).map((value) => JSON.parse(value) as WorkerInfo);
      const stale = workers
        .filter((worker) => now - worker.lastSeenAt >= STALE_MS * 4)
        .map((worker) => worker.id);
      if (stale.length > 0) await redis.hdel(key, ...stale);
      return workers.filter((worker) => now - worker.lastSeenAt < STALE_MS);
    },
  };
}

/** Identity of this worker process. */
export function workerIdentity(id?: string): Pick<WorkerInfo, "id" | "host" | "pid" | "startedAt"> {
  return {
    id: id ?? `${hostname()}:${process.pid}`,
    host: hostname(),
    pid: process.pid,
    startedAt: Date.now(),
  };
}
