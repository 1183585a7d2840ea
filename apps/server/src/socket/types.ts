import type { Command, LongrunEvent, ServerFrame } from "@longrun/protocol";

/** An event as the live fan-out delivers it: already persisted, optionally stamped with its tenant. */
export type LiveEvent = LongrunEvent & { tenantId?: string };

/** What the gateway needs from the rest of the server; injected so sessions can be tested without ws. */
export interface SocketDeps {
  log: {
    /** Persisted events of a thread with seq > afterSeq, ascending, at most `limit`. */
    after(threadId: string, afterSeq: number, limit: number): Promise<LongrunEvent[]>;
    /** Oldest retained seq of a thread, or null when it has no events. */
    oldest(threadId: string): Promise<number | null>;
    /** Highest seq of a thread, -1 when it has none. */
    head(threadId: string): Promise<number>;
  };
  threads: {
    canAccess(tenantId: string, threadId: string): Promise<boolean>;
    listIds(tenantId: string): Promise<string[]>;
  };
  /** Every event of every thread, after it is persisted; returns the detach function. */
  live: { subscribe(handler: (event: LiveEvent) => void): () => void };
  commands: { execute(tenantId: string, command: Command): Promise<unknown> };
  now(): number;
}

/** Tunables of one session; every field has a default (see DEFAULT_SOCKET_OPTIONS). */
export interface SocketOptions {
  /**
   * Liveness period: the server sends a protocol ping and a `heartbeat` frame this often, and closes a
   * connection from which nothing (not even the pong to the previous ping) arrived for a whole period.
   */
  heartbeatMs: number;
  /** Events sent but not acknowledged, per subscription, before the server stops sending. */
  maxUnacked: number;
  /** Live events waiting behind a blocked subscription before the consumer counts as slow. */
  maxQueued: number;
  /** How long a subscription may stay blocked on acknowledgements before the consumer counts as slow. */
  stallTimeoutMs: number;
  /** Bytes buffered in the socket before the consumer counts as slow. */
  maxBufferedBytes: number;
  /** Events per durable-log read during replay and gap filling. */
  replayPageSize: number;
  /**
   * Events a subscription to every thread ("*") replays at most: past it each thread's replay is cut to
   * its newest events and the client gets a `resync` (reason `bounded`) saying where its stream starts.
   */
  maxWildcardReplay: number;
}

export const DEFAULT_SOCKET_OPTIONS: SocketOptions = {
  heartbeatMs: 15_000,
  maxUnacked: 5_000,
  maxQueued: 5_000,
  stallTimeoutMs: 10_000,
  maxBufferedBytes: 8 * 1024 * 1024,
  replayPageSize: 500,
  // A tenant's whole log from `since: 0` cost ~0.4 s of server time per connection: a cheap amplifier.
  maxWildcardReplay: 2_000,
};

/** Close codes the gateway uses (4000-4999 are application codes); README "WebSocket protocol" lists them. */
export const CLOSE_CODES = {
  goingAway: 1001,
  /** The connection's token was revoked (`longrun token revoke`, DELETE /v1/tokens/:id). */
  tokenRevoked: 4001,
  /** The peer did not answer a protocol ping (and sent nothing else) within one heartbeat period. */
  pingTimeout: 4002,
  slowConsumer: 4008,
} as const;

/** The transport a session writes to; the ws adapter implements it, tests may too. */
export interface SessionTransport {
  send(frame: ServerFrame): void;
  /** Sends one event frame: the fan-out's hot path (no frame object; the encoding is shared per event). */
  sendEvent(subscription: string, event: LongrunEvent): void;
  close(code: number, reason: string): void;
  /** Sends a protocol-level ping; the peer's WebSocket implementation answers it by itself. */
  ping(): void;
  /** Bytes queued in the transport but not yet written. */
  bufferedAmount(): number;
}
