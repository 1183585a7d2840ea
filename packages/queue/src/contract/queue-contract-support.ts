import type { PolicyOverrides } from "../catalog.ts";
import type { JobQueue } from "../job-queue.ts";

/** Opens handles onto one backing store (BullMQ: one prefix; in-process: one shared job store). */
export interface QueueHarness {
  open(policy?: PolicyOverrides): JobQueue;
  cleanup(): Promise<void>;
}

/** Short retries, so the contract runs fast. */
export const fast: PolicyOverrides = {
  "agent.step": { attempts: 3, backoffMs: 20 },
  "agent.compact": { attempts: 3, backoffMs: 20 },
};

/** A step payload of one run. */
export const step = (runId = "run-1") => ({ threadId: "thread-1", agentId: "agent-1", runId });

/** A promise plus the function that resolves it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** Simulated work inside a handler (not a wait in the test itself). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Resolves when the signal aborts. */
export function abortOf(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

/** Opens a queue handle onto the harness's backing store, with the contract's short policy by default. */
export type OpenQueue = (policy?: PolicyOverrides) => Promise<JobQueue>;
