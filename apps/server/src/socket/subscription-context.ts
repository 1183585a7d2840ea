import type { ServerFrame } from "@longrun/protocol";
import type { LiveFanout } from "./live-fanout.ts";
import type { SessionTransport, SocketDeps, SocketOptions } from "./types.ts";

/** What a subscription needs from its session. */
export interface SubscriptionContext {
  tenantId: string;
  deps: SocketDeps;
  options: SocketOptions;
  /** The live event source, shared by the sessions of one gateway. */
  fanout: LiveFanout;
  /** Sends a control frame (subscribed, resync, error) unless the session is closed. */
  send(frame: ServerFrame): void;
  /** The session's transport, for event frames: the hot path skips the session's wrappers. */
  transport: SessionTransport;
  /** Called when the client cannot keep up; the session closes the connection. */
  slow(reason: string): void;
  /** Called when a dependency fails mid-stream; the session reports it and drops the subscription. */
  fail(error: unknown): void;
  /** True when the socket is congested enough that droppable frames should be dropped. */
  congested(): boolean;
}

/** Start point of a subscription, reported in the `subscribed` frame. */
export interface SubscriptionStart {
  headSeq: number;
  heads?: Record<string, number>;
}

/** Delivery state of one thread within a subscription. */
export interface ThreadState {
  /** Highest seq processed (sent or filtered out); undefined until the thread's start is known. */
  cursor: number | undefined;
  /** Whether the tenant may see the thread; undefined until checked. */
  visible: boolean | undefined;
  /** Seqs sent and not yet acknowledged, ascending. */
  unacked: number[];
}
