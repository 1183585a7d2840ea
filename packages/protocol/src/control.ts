import { z } from "zod";

/** A message on the control channel between processes: a cancel reaches the worker running the run. */
export const ControlMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("cancel"), runId: z.string().min(1) }),
]);
export type ControlMessage = z.infer<typeof ControlMessage>;
