import { z } from "zod";

/** GET /v1/ops: what an operator needs to see at a glance. */
export const OpsView = z.object({
  mode: z.enum(["embedded", "distributed"]),
  workers: z.array(
    z.object({
      id: z.string(),
      host: z.string(),
      pid: z.number().int(),
      startedAt: z.number().int(),
      lastSeenAt: z.number().int(),
      activeJobs: z.number().int().nonnegative(),
    }),
  ),
  queues: z.array(
    z.object({
      name: z.string(),
      waiting: z.number().int().nonnegative(),
      active: z.number().int().nonnegative(),
      delayed: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
      oldestWaitMs: z.number().int().nonnegative(),
    }),
  ),
  breakers: z.array(
    z.object({
      agentId: z.string(),
      threadId: z.string().nullable(),
      state: z.enum(["closed", "open", "half_open"]),
      failures: z.number().int().nonnegative(),
      cooldownMs: z.number().int().nonnegative(),
      openUntil: z.number().int().nullable(),
    }),
  ),
  /** The caller's runs the reconciler marked stuck: nothing moves them and recovery did not help. */
  stuckRuns: z
    .array(
      z.object({
        runId: z.string(),
        threadId: z.string(),
        agentId: z.string(),
        reason: z.string(),
        startedAt: z.number().int().nullable(),
      }),
    )
    .default([]),
  failures: z.array(
    z.object({
      at: z.number().int(),
      threadId: z.string().nullable(),
      agentId: z.string().nullable(),
      kind: z.string(),
      message: z.string(),
    }),
  ),
});
export type OpsView = z.infer<typeof OpsView>;

/** GET /v1/agents/:id/history: the compacted source messages offloaded to the history file. */
export const HistoryView = z.object({
  agentId: z.string(),
  file: z.string().nullable(),
  messages: z.array(z.unknown()),
});
export type HistoryView = z.infer<typeof HistoryView>;
