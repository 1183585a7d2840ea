import { LRUCache } from "lru-cache";
import type { JobEvent, JobOutcome } from "./job-queue.ts";

/** Listeners for a handle's job events, with a short memory so `waitForJob` never misses an ending. */
export interface JobEvents {
  emit(event: JobEvent): void;
  on(listener: (event: JobEvent) => void): () => void;
  waitForJob(jobId: string, timeoutMs?: number): Promise<JobOutcome>;
}

const REMEMBERED_OUTCOMES = 1_000;

/** Creates the event hub both adapters use. */
export function createJobEvents(): JobEvents {
  const listeners = new Set<(event: JobEvent) => void>();
  const outcomes = new LRUCache<string, JobOutcome>({ max: REMEMBERED_OUTCOMES });

  const outcomeOf = (event: JobEvent): JobOutcome | undefined => {
    if (event.type === "completed") return { status: "completed", result: event.result };
    if (event.type === "failed" && !event.willRetry) return { status: "failed", error: event.error };
    return undefined;
  };

  const on = (listener: (event: JobEvent) => void) => {
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  };

  return {
    emit(event) {
      const outcome = outcomeOf(event);
      if (outcome) outcomes.set(event.jobId, outcome);
      for (const listener of [...listeners]) listener(event);
    },
    on,
    waitForJob(jobId, timeoutMs = 30_000) {
      const known = outcomes.get(jobId);
      if (known) return Promise.resolve(known);
      return new Promise<JobOutcome>((resolve, reject) => {
        const timer = setTimeout(() => {
          off();
          reject(new Error(`job ${jobId} did not finish within ${timeoutMs} ms`));
        }, timeoutMs);
        const off = on((event) => {
          const outcome = event.jobId === jobId ? outcomeOf(event) : undefined;
          if (!outcome) return;
          clearTimeout(timer);
          off();
          resolve(outcome);
        });
      });
    },
  };
}
