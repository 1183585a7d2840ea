import { z } from "zod";
import { ControlMessage } from "./control.ts";
import { LongrunEvent } from "./events.ts";

/**
 * An event as it travels between processes on the `events` channel: the envelope with its tenant, so
 * every server instance scopes the fan-out without reading the thread. Transient events (token deltas)
 * travel with seq 0 and are never persisted.
 */
export const BusEvent = z.intersection(LongrunEvent, z.object({ tenantId: z.string() }));
export type BusEvent = z.infer<typeof BusEvent>;

/**
 * Every channel that crosses a process, with the schema of its messages: a publisher sends what the
 * schema accepts and every receiver parses on receipt (a message that does not parse is reported and
 * dropped, never cast).
 */
export const busChannels = {
  /** Every persisted event (and every transient delta), published after its commit. */
  events: BusEvent,
  /** Run control between processes: a cancel reaches the worker running the run. */
  control: ControlMessage,
} as const;

/** A map of channel names to message schemas (busChannels, or a test's own). */
export type ChannelSchemas = Record<string, z.ZodType>;
export type BusChannels = typeof busChannels;
export type BusChannel = keyof BusChannels;
/** What a publisher of `channel` sends. */
export type BusMessageInput<Channels extends ChannelSchemas, Channel extends keyof Channels> = z.input<
  Channels[Channel]
>;
/** What a subscriber of `channel` receives, after parsing. */
export type BusMessage<Channels extends ChannelSchemas, Channel extends keyof Channels> = z.output<
  Channels[Channel]
>;
