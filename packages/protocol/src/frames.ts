import { z } from "zod";
import { LongrunEvent } from "./events.ts";

/** Subscribe to one thread or all of the tenant's ("*"), optionally filtered. */
export const SubscribeFrame = z.object({
  type: z.literal("subscribe"),
  /** Client-chosen id echoed on acknowledgements and events. */
  id: z.string().min(1).max(100),
  threadId: z.string().min(1),
  types: z.array(z.string()).optional(),
  agentId: z.string().optional(),
  /** Replay everything after this seq (per thread); omit for live only. */
  since: z.number().int().min(-1).optional(),
  /** For "*": per-thread resume points that override `since` (a reconnecting client's last seen seqs). */
  sinceByThread: z.record(z.string(), z.number().int().min(-1)).optional(),
});
export type SubscribeFrame = z.infer<typeof SubscribeFrame>;

export const UnsubscribeFrame = z.object({ type: z.literal("unsubscribe"), id: z.string() });

export const Command = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("send_message"),
    threadId: z.string(),
    content: z.string().min(1),
    agentId: z.string().optional(),
  }),
  z.object({
    kind: z.literal("approve"),
    /** The agent whose call it is: call ids are unique only within one agent's log. */
    agentId: z.string(),
    callId: z.string(),
    decision: z.enum(["approve", "deny"]),
    reason: z.string().optional(),
  }),
  z.object({ kind: z.literal("compact"), agentId: z.string() }),
  z.object({ kind: z.literal("cancel"), runId: z.string() }),
]);
export type Command = z.infer<typeof Command>;

export const CommandFrame = z.object({ type: z.literal("command"), id: z.string(), command: Command });
/** Client acknowledges events up to `seq` of a subscription (flow control). */
export const ClientAckFrame = z.object({
  type: z.literal("ack"),
  id: z.string(),
  seq: z.number().int(),
  /** The thread `seq` belongs to; required for "*" subscriptions, default the subscription's thread. */
  threadId: z.string().optional(),
});
export const PingFrame = z.object({ type: z.literal("ping"), at: z.number().optional() });

export const ClientFrame = z.discriminatedUnion("type", [
  SubscribeFrame,
  UnsubscribeFrame,
  CommandFrame,
  ClientAckFrame,
  PingFrame,
]);
export type ClientFrame = z.infer<typeof ClientFrame>;

export const EventFrame = z.object({
  type: z.literal("event"),
  subscription: z.string(),
  event: LongrunEvent,
});
export const AckFrame = z.object({
  type: z.literal("ack"),
  id: z.string(),
  ok: z.boolean(),
  result: z.unknown().optional(),
});
export const SubscribedFrame = z.object({
  type: z.literal("subscribed"),
  id: z.string(),
  /** Highest seq known for the thread when the subscription started (-1 for none). */
  headSeq: z.number().int(),
  /** For "*": the head seq of every thread the subscription covered when it started. */
  heads: z.record(z.string(), z.number().int()).optional(),
});
export const ErrorFrame = z.object({
  type: z.literal("error"),
  id: z.string().optional(),
  code: z.string(),
  message: z.string(),
});
/**
 * The client's resume point cannot be honoured; it must reload the thread's state over REST. `expired`:
 * `since` is older than the retained log (events before `oldestSeq` are gone). `ahead`: `since` is above
 * the thread's head (the log was restored or belongs elsewhere). The subscription continues either way,
 * with the first event after `resumeAfter`; a client resets its cursor for the thread to that seq.
 */
export const ResyncFrame = z.object({
  type: z.literal("resync"),
  id: z.string(),
  threadId: z.string(),
  /**
   * `expired`: the events after `requestedSince` are gone (retention); `ahead`: `requestedSince` is above
   * the head; `bounded`: a subscription to every thread asked for more replay than the server gives at
   * once, so this thread's replay starts later (the skipped events stay readable over REST).
   */
  reason: z.enum(["expired", "ahead", "bounded"]),
  requestedSince: z.number().int(),
  /** Oldest seq the log still holds (the next seq when it holds none). */
  oldestSeq: z.number().int(),
  resumeAfter: z.number().int(),
});
export const HeartbeatFrame = z.object({ type: z.literal("heartbeat"), at: z.number() });
export const PongFrame = z.object({ type: z.literal("pong"), at: z.number().optional() });
/** Sent before the server closes a slow or misbehaving connection. */
export const ClosingFrame = z.object({ type: z.literal("closing"), reason: z.string() });

export const ServerFrame = z.discriminatedUnion("type", [
  EventFrame,
  AckFrame,
  SubscribedFrame,
  ErrorFrame,
  ResyncFrame,
  HeartbeatFrame,
  PongFrame,
  ClosingFrame,
]);
export type ServerFrame = z.infer<typeof ServerFrame>;
