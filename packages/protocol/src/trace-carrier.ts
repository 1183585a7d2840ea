import { z } from "zod";

/**
 * The W3C trace context (`traceparent`, `tracestate`) of the work that asked for a job or sent a bus
 * message, so the process that takes it continues the same trace. Absent when tracing is off.
 */
export const TraceCarrier = z.object({
  traceparent: z.string().max(128),
  tracestate: z.string().max(512).optional(),
});
export type TraceCarrier = z.infer<typeof TraceCarrier>;
