import type { CompactionShrink } from "@longrun/protocol";
import type { CompactJob } from "@longrun/queue";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** How one compaction ended. */
export type CompactionOutcome =
  | { kind: "compacted"; compactionId: string; tokensBefore: number; tokensAfter: number }
  | { kind: "nothing"; reason: string }
  | { kind: "failed"; reason: string; retryAt?: number }
  | { kind: "blocked"; reason: string; retryAt?: number }
  | { kind: "exhausted"; reason: string };

/** A compaction job under the agent's lease. */
export type LeasedCompactJob = CompactJob & { fence: number; signal: AbortSignal; compactionKey?: string };

/**
 * One attempt of one compaction: its key (stable across redeliveries of the same job), whether it
 * announced its start and its end, and the one way its failures are reported.
 */
export interface CompactionAttempt {
  deps: RuntimeDeps;
  job: LeasedCompactJob;
  compactionKey: string;
  where: { threadId: string; agentId: string; runId: string };
  started: boolean;
  ended: boolean;
  /** Emits `compaction.failed` (and marks the attempt ended). */
  reportFailure(
    reason: string,
    breaker: "closed" | "open" | "half_open",
    contextExhausted: boolean,
    shrunk?: CompactionShrink[],
  ): Promise<unknown>;
}

/** Starts an attempt's bookkeeping. */
export function beginAttempt(
  deps: RuntimeDeps,
  job: LeasedCompactJob,
  compactionKey: string,
): CompactionAttempt {
  const where = { threadId: job.threadId, agentId: job.agentId, runId: job.runId };
  const attempt: CompactionAttempt = {
    deps,
    job,
    compactionKey,
    where,
    started: false,
    ended: false,
    reportFailure(reason, breaker, contextExhausted, shrunk) {
      attempt.ended = true;
      return deps.events.emit({
        ...where,
        type: "compaction.failed",
        data: {
          compactionKey,
          trigger: job.trigger,
          reason,
          breaker,
          contextExhausted,
          ...(shrunk ? { shrunk } : {}),
        },
      });
    },
  };
  return attempt;
}
