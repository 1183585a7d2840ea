import { backoffDelay, CompactionTrigger, TraceCarrier } from "@longrun/protocol";
import { z } from "zod";

/** The BullMQ queues (one Queue + one Worker each); jobs of one queue share its concurrency. */
export const QueueName = z.enum(["agent", "compaction"]);
export type QueueName = z.infer<typeof QueueName>;

/** How a failed job is retried: `attempts` counts the first try; the delay doubles each retry. */
export interface RetryPolicy {
  attempts: number;
  backoffMs: number;
  backoff: "exponential";
}

/** One entry of the job catalog (trigger.dev `workerCatalog` style). */
export interface JobDefinition<Schema extends z.ZodType = z.ZodType> {
  schema: Schema;
  queue: QueueName;
  retry: RetryPolicy;
  /** The handler's signal is aborted and the attempt fails (and may retry) after this long. */
  timeoutMs: number;
  /** Jobs with the same key are deduplicated while one is waiting, delayed or active. */
  dedupeKey?: (payload: z.output<Schema>) => string;
  /**
   * Whose share of the workers a job uses (its tenant): a key with many jobs queued waits behind a key
   * with few, so one tenant's backlog does not delay another's next step (see fair-share.ts).
   */
  fairnessKey?: (payload: z.output<Schema>) => string | undefined;
}

/** Keeps the schema's exact type in the catalog. */
function defineJob<Schema extends z.ZodType>(definition: JobDefinition<Schema>): JobDefinition<Schema> {
  return definition;
}

const id = z.string().min(1);

/**
 * What every agent job names: its thread, agent and run, and the thread's tenant, stamped by the
 * scheduler (the job's share of the workers is this tenant's: fair-share.ts); and the trace context of
 * the work that asked for it, so the worker's spans join the same trace (absent when tracing is off).
 */
const AgentJobTarget = z.object({
  threadId: id,
  agentId: id,
  runId: id,
  tenantId: z.string().optional(),
  trace: TraceCarrier.optional(),
});

/** Run one step of an agent (one model call and its tool calls). */
export const AgentStepPayload = AgentJobTarget.extend({
  /** The agent's last seq when the step was scheduled; a step that finds the log moved on is stale. */
  expectSeq: z.number().int().min(-1).optional(),
  /** Set after an overflow-triggered compaction: a second provider overflow ends the agent. */
  afterOverflow: z.boolean().optional(),
  /** Set after a compaction found nothing to summarize: the step goes on without asking again. */
  compactionDeferred: z.boolean().optional(),
});
export type AgentStepPayload = z.infer<typeof AgentStepPayload>;
/** A step as the runtime asks for it; the scheduler stamps `expectSeq` when it enqueues. */
export type StepJob = Omit<AgentStepPayload, "expectSeq">;

/** Compact an agent's context (summary pass); deduplicated per agent. */
export const AgentCompactPayload = AgentJobTarget.extend({
  trigger: CompactionTrigger,
  strategy: z.enum(["partial", "full"]).optional(),
});
export type AgentCompactPayload = z.infer<typeof AgentCompactPayload>;
/** A compaction as the runtime asks for it. */
export type CompactJob = AgentCompactPayload;

/** Summarize an agent's older prefix in the background, before its trigger; one per agent at a time. */
export const AgentPreparePayload = AgentJobTarget;
export type AgentPreparePayload = z.infer<typeof AgentPreparePayload>;
export type PrepareJob = AgentPreparePayload;

/** Every job longrun runs, with its payload schema, queue, retry policy and timeout. */
export const jobCatalog = {
  "agent.step": defineJob({
    schema: AgentStepPayload,
    queue: "agent",
    retry: { attempts: 5, backoffMs: 1_000, backoff: "exponential" },
    timeoutMs: 15 * 60_000,
    fairnessKey: (payload) => payload.tenantId,
  }),
  "agent.compact": defineJob({
    schema: AgentCompactPayload,
    queue: "compaction",
    retry: { attempts: 3, backoffMs: 2_000, backoff: "exponential" },
    timeoutMs: 5 * 60_000,
    // One compaction per agent and run at a time: a step that asks again while one is queued or running
    // is a duplicate, but a /compact run that starts while a cancelled run's compaction is still
    // winding down is not (dropping it left that run "running" with no job).
    dedupeKey: (payload) => `compact:${payload.agentId}:${payload.runId}`,
    fairnessKey: (payload) => payload.tenantId,
  }),
  "agent.prepare-summary": defineJob({
    schema: AgentPreparePayload,
    queue: "compaction",
    // Optional work: a failure is counted by the breaker and the foreground compaction does it instead.
    retry: { attempts: 1, backoffMs: 2_000, backoff: "exponential" },
    timeoutMs: 5 * 60_000,
    dedupeKey: (payload) => `prepare:${payload.agentId}`,
    fairnessKey: (payload) => payload.tenantId,
  }),
};

export type JobCatalog = typeof jobCatalog;
export type JobName = keyof JobCatalog;
/** What a handler receives (after zod parsing). */
export type JobPayload<N extends JobName> = z.output<JobCatalog[N]["schema"]>;
/** What enqueue accepts (before zod parsing). */
export type JobInput<N extends JobName> = z.input<JobCatalog[N]["schema"]>;

/** Every job name, in catalog order. */
export const jobNames = Object.keys(jobCatalog) as JobName[];

/** Per-deployment (or per-test) changes to a job's retry policy and timeout. */
export type PolicyOverrides = Partial<
  Record<JobName, Partial<Pick<RetryPolicy, "attempts" | "backoffMs">> & { timeoutMs?: number }>
>;

/** A job's effective policy after overrides. */
export function resolvePolicy(
  name: JobName,
  overrides: PolicyOverrides | undefined,
): { attempts: number; backoffMs: number; timeoutMs: number } {
  const definition = jobCatalog[name];
  const override = overrides?.[name];
  return {
    attempts: override?.attempts ?? definition.retry.attempts,
    backoffMs: override?.backoffMs ?? definition.retry.backoffMs,
    timeoutMs: override?.timeoutMs ?? definition.timeoutMs,
  };
}

/** Delay before retry number `retry` (1 after the first failure): BullMQ's exponential formula, uncapped. */
export function retryDelay(backoffMs: number, retry: number): number {
  return backoffDelay(retry, { baseMs: backoffMs, capMs: Number.POSITIVE_INFINITY, jitter: 0 });
}

/** The queue a job name belongs to, or undefined for a name outside the catalog. */
export function queueOf(name: string): QueueName | undefined {
  return Object.hasOwn(jobCatalog, name) ? jobCatalog[name as JobName].queue : undefined;
}
