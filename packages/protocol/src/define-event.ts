import { z } from "zod";

/** One event definition: its literal type name and the schema of its data. */
export interface EventDefinition<Type extends string, Data extends z.ZodType> {
  type: Type;
  data: Data;
  /** The full envelope schema for this one event type. */
  schema: z.ZodObject<{
    threadId: z.ZodString;
    seq: z.ZodNumber;
    agentId: z.ZodOptional<z.ZodString>;
    runId: z.ZodOptional<z.ZodString>;
    type: z.ZodLiteral<Type>;
    data: Data;
    at: z.ZodNumber;
  }>;
}

/** Defines an event once; the union in events.ts is derived from these definitions. */
export function defineEvent<Type extends string, Data extends z.ZodType>(
  type: Type,
  data: Data,
): EventDefinition<Type, Data> {
  return {
    type,
    data,
    schema: z.object({
      threadId: z.string(),
      seq: z.number().int().nonnegative(),
      agentId: z.string().optional(),
      runId: z.string().optional(),
      type: z.literal(type),
      data,
      at: z.number().int(),
    }),
  };
}
