/** IPC between the ws fan-out bench and its child processes (all in one repository, one Node version). */

/** Orchestrator → server process. */
export type ToServer =
  /**
   * Publish `count` events from `firstSeq` on: back to back (`rate` 0), `perTurn` at a time between two
   * I/O turns, or one at a time at `rate` per second.
   */
  | { type: "publish"; firstSeq: number; count: number; rate: number; perTurn: number }
  /** Reply with the CPU the process used since the last `publish` began. */
  | { type: "cpu" }
  | { type: "exit" };

/** Server process → orchestrator. */
export type FromServer =
  | { type: "listening"; url: string }
  | { type: "published" }
  | { type: "cpu"; userMs: number; systemMs: number };

/** Orchestrator → client process. */
export type ToClients =
  /** Reply with `reached` once every socket received `seq`. */
  | { type: "expect"; seq: number }
  /** Reply with the latencies sampled since the last `collect`, and forget them. */
  | { type: "collect" }
  | { type: "exit" };

/** Client process → orchestrator. */
export type FromClients =
  | { type: "connected" }
  /** `cpuMs`: the process's CPU since the previous `reached`. */
  | { type: "reached"; seq: number; frames: number; cpuMs: number }
  | { type: "latencies"; values: number[] }
  | { type: "failed"; message: string };

/** Publisher's wall clock, comparable across processes on one host (ms since the epoch, sub-ms). */
export function wallClock(): number {
  return performance.timeOrigin + performance.now();
}

/** Every bench client subscribes with this id, so both contenders send byte-identical frames. */
export const SUBSCRIPTION_ID = "s1";
export const THREAD_ID = "bench-thread";
export const TOKEN = "bench-token-0123456789";
/** The SDK acknowledges at least every 100 events; the bench clients do the same. */
export const ACK_EVERY = 100;
