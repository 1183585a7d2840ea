import { z } from "zod";
import { TraceCarrier } from "./trace-carrier.ts";

/** A message on the control channel between processes: a cancel reaches the worker running the run. */
export const ControlMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("cancel"), runId: z.string().min(1), trace: TraceCarrier.optional() }),
]);
export type ControlMessage = z.infer<typeof ControlMessage>;
