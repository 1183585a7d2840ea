import { z } from "zod";

/**
 * GET /v1/ops: what an operator needs to see at a glance, scoped to the caller's tenant. Breakers and
 * failures name the tenant's own threads and agents only. Workers and queues are the shared pool every
 * tenant's runs wait on: they carry counts, ages and worker identities but no thread, agent, tenant or
 * error text, so they are shown to every tenant (who needs them to see why a run waits).
 */
export const OpsView = z
  .object({
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
  })
  .meta({ id: "OpsView" });
export type OpsView = z.infer<typeof OpsView>;

/** GET /v1/agents/:id/history: the compacted source messages offloaded to the history file, a page of lines. */
export const HistoryView = z
  .object({
    agentId: z.string(),
    file: z.string().nullable(),
    messages: z.array(z.unknown()),
    /** Set when more lines may follow (count or byte bound hit): pass it as `offset`. */
    nextOffset: z.number().int().nullable(),
  })
  .meta({ id: "HistoryView" });
export type HistoryView = z.infer<typeof HistoryView>;

/** GET /healthz: the process answers. */
export const Health = z.object({ ok: z.literal(true) }).meta({ id: "Health" });
export type Health = z.infer<typeof Health>;

/** GET /readyz: every dependency (database, Redis) reachable; 503 with the same body when one is not. */
export const Readiness = z
  .object({
    ok: z.boolean(),
    checks: z.record(z.string(), z.boolean()),
    /** For each failing check, what is wrong (e.g. `database`: the data folder was renamed away). */
    problems: z.record(z.string(), z.string()).optional(),
  })
  .meta({ id: "Readiness" });
export type Readiness = z.infer<typeof Readiness>;
