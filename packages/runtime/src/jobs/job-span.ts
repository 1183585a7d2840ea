import type { TraceCarrier } from "@longrun/protocol";
import { type JobContext, queueOf, traceContextOf } from "@longrun/queue";
import { SpanKind } from "@opentelemetry/api";
import { idAttributes, inSpan } from "../tracing/spans.ts";

/** What every job payload names (queue catalog), with the trace context its producer put in it. */
export interface JobTarget {
  threadId: string;
  agentId: string;
  runId: string;
  tenantId?: string | undefined;
  trace?: TraceCarrier | undefined;
}

/**
 * One attempt of one job as a consumer span (`process agent.step`) that continues the trace of whoever
 * enqueued it (a request, the step before), so a run's jobs on any worker form one trace.
 */
export function jobSpan<T>(
  payload: JobTarget,
  context: Pick<JobContext, "jobId" | "name" | "attempt" | "redelivered">,
  work: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `process ${context.name}`,
    {
      kind: SpanKind.CONSUMER,
      parent: traceContextOf(payload.trace),
      attributes: {
        "messaging.system": "longrun",
        "messaging.operation.type": "process",
        "messaging.destination.name": queueOf(context.name) ?? context.name,
        "messaging.message.id": context.jobId,
        "longrun.job.name": context.name,
        "longrun.job.attempt": context.attempt,
        ...(context.redelivered ? { "longrun.job.redelivered": true } : {}),
        ...idAttributes(payload),
      },
    },
    async (span) => {
      const result = await work();
      const kind = outcomeOf(result);
      if (kind) span.setAttribute("longrun.job.outcome", kind);
      return result;
    },
  );
}

/** The outcome or skip reason a job handler returns (`{ outcome }`, `{ skipped }`), for the span. */
function outcomeOf(result: unknown): string | undefined {
  if (typeof result !== "object" || result === null) return undefined;
  const record = result as Record<string, unknown>;
  const value = record.outcome ?? (record.skipped ? `skipped: ${String(record.skipped)}` : undefined);
  return typeof value === "string" ? value : undefined;
}
