import { randomUUID } from "node:crypto";
import { LongrunError } from "@longrun/protocol";
import { type JobDefinition, type JobName, jobCatalog } from "./catalog.ts";
import type { EnqueueOptions } from "./job-queue.ts";

/** A validated enqueue, ready for an adapter. */
export interface EnqueueRequest {
  name: JobName;
  definition: JobDefinition;
  payload: unknown;
  jobId: string;
  explicitJobId: boolean;
  delayMs: number;
  dedupeKey: string | undefined;
  /** Whose fair share the job counts against (catalog's `fairnessKey`); undefined: nobody's. */
  fairnessKey: string | undefined;
}

const JOB_ID = /^[A-Za-z0-9._-]{1,200}$/;

/** Checks name, payload and options of an enqueue (same rules for every adapter). */
export function parseEnqueue(name: string, payload: unknown, options: EnqueueOptions = {}): EnqueueRequest {
  if (!Object.hasOwn(jobCatalog, name)) throw new LongrunError("bad_request", `unknown job "${name}"`);
  const jobName = name as JobName;
  const definition = jobCatalog[jobName] as JobDefinition;
  const parsed = definition.schema.safeParse(payload);
  if (!parsed.success) {
    throw new LongrunError("bad_request", `invalid payload for ${jobName}`, parsed.error.issues);
  }
  // BullMQ rejects integer ids and ids with ":"; the same rule keeps both adapters interchangeable.
  if (options.jobId !== undefined && (!JOB_ID.test(options.jobId) || /^\d+$/.test(options.jobId))) {
    throw new LongrunError("bad_request", `invalid job id "${options.jobId}"`);
  }
  const delayMs = options.delayMs ?? 0;
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new LongrunError("bad_request", "delayMs must be >= 0");
  return {
    name: jobName,
    definition,
    payload: parsed.data,
    jobId: options.jobId ?? randomUUID(),
    explicitJobId: options.jobId !== undefined,
    delayMs,
    dedupeKey: options.dedupeKey ?? definition.dedupeKey?.(parsed.data),
    fairnessKey: definition.fairnessKey?.(parsed.data),
  };
}
