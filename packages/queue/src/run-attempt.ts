import { type JobDefinition, type JobName, jobCatalog } from "./catalog.ts";
import { JobTimeoutError, UnrecoverableJobError } from "./errors.ts";
import type { JobContext, JobHandlers } from "./job-queue.ts";

/** How one attempt ended. `requeue`: the worker is shutting down and the job must run again elsewhere. */
export type AttemptOutcome =
  | { kind: "completed"; result: unknown }
  | { kind: "failed"; error: Error; unrecoverable: boolean }
  | { kind: "requeue" };

/** Everything one attempt needs. */
export interface AttemptInput {
  name: string;
  payload: unknown;
  jobId: string;
  attempt: number;
  /** Attempts the job has in all (its retry policy's `attempts`). */
  maxAttempts: number;
  /** An earlier run of this attempt was interrupted (crash, stall, shutdown). */
  redelivered?: boolean;
  /** When the job became ready to run (enqueued, or its delay over), epoch ms: its queue wait ends now. */
  readyAt?: number;
  timeoutMs: number;
  handlers: JobHandlers;
  /** Aborted when the worker's grace period is over. */
  shutdownSignal: AbortSignal;
}

type AnyHandler = (payload: unknown, context: JobContext) => Promise<unknown>;

/**
 * Runs one attempt: validates the payload again (the worker trusts nothing it reads from a queue),
 * enforces the timeout, and settles as soon as the signal fires even if the handler ignores it.
 */
export async function runAttempt(input: AttemptInput): Promise<AttemptOutcome> {
  if (!Object.hasOwn(jobCatalog, input.name)) {
    return unrecoverable(`unknown job "${input.name}"`);
  }
  const name = input.name as JobName;
  const definition = jobCatalog[name] as JobDefinition;
  const parsed = definition.schema.safeParse(input.payload);
  if (!parsed.success) return unrecoverable(`invalid payload for ${name}: ${parsed.error.message}`);
  const handler = input.handlers[name] as AnyHandler | undefined;
  if (!handler) return unrecoverable(`no handler for ${name}`);
  if (input.shutdownSignal.aborted) return { kind: "requeue" };

  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new JobTimeoutError(name, input.timeoutMs)),
    input.timeoutMs,
  );
  const onShutdown = () => controller.abort(input.shutdownSignal.reason);
  input.shutdownSignal.addEventListener("abort", onShutdown, { once: true });
  const aborted = new Promise<"aborted">((resolve) => {
    controller.signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const context: JobContext = {
    jobId: input.jobId,
    name,
    attempt: input.attempt,
    maxAttempts: input.maxAttempts,
    finalAttempt: input.attempt >= input.maxAttempts,
    ...(input.readyAt !== undefined ? { readyAt: input.readyAt } : {}),
    redelivered: input.redelivered ?? false,
    signal: controller.signal,
  };
  const running = Promise.resolve().then(() => handler(parsed.data, context));
  // The handler may still settle after we gave up on it; its late rejection must not go unhandled.
  running.catch(() => undefined);
  try {
    const first = await Promise.race([running.then((result) => ({ result })), aborted]);
    if (first !== "aborted") return { kind: "completed", result: first.result };
    if (input.shutdownSignal.aborted) return { kind: "requeue" };
    return { kind: "failed", error: toError(controller.signal.reason), unrecoverable: false };
  } catch (error) {
    if (input.shutdownSignal.aborted) return { kind: "requeue" };
    return { kind: "failed", error: toError(error), unrecoverable: UnrecoverableJobError.isInstance(error) };
  } finally {
    clearTimeout(timer);
    input.shutdownSignal.removeEventListener("abort", onShutdown);
  }
}

function unrecoverable(message: string): AttemptOutcome {
  return { kind: "failed", error: new UnrecoverableJobError(message), unrecoverable: true };
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
