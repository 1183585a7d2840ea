/**
 * What the runtime measures, in the process that does the work (the composition backs it with
 * prom-client histograms): each step, each model call, each job's queue wait, each compaction.
 */
export interface RuntimeMetrics {
  /** One agent step (lease to outcome), by its outcome kind. */
  step(seconds: number, outcome: string): void;
  /** One model call attempt: an agent step's or a compaction's summary, answered or failed. */
  modelCall(seconds: number, purpose: "step" | "summary", outcome: "ok" | "error"): void;
  /** How long a job waited in its queue between becoming ready and a worker taking it. */
  queueWait(seconds: number, job: string): void;
  /** One compaction job, by its outcome kind. */
  compaction(seconds: number, outcome: string): void;
  /** A run admitted by this process: REST, WebSocket and gateway turns alike. */
  runAdmitted(kind: "message" | "compact" | "spawn" | "gateway", tenantId: string): void;
}

/** Times `call` as one model call of `purpose` on `metrics` (nothing when there are none). */
export async function timedModelCall<T>(
  metrics: RuntimeMetrics | undefined,
  purpose: "step" | "summary",
  call: () => Promise<T>,
): Promise<T> {
  if (!metrics) return call();
  const startedAt = performance.now();
  try {
    const result = await call();
    metrics.modelCall((performance.now() - startedAt) / 1000, purpose, "ok");
    return result;
  } catch (error) {
    metrics.modelCall((performance.now() - startedAt) / 1000, purpose, "error");
    throw error;
  }
}
