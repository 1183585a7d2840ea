import type { ClientFrame, LongrunEvent } from "@longrun/protocol";

/** What to subscribe to: one thread or all of the tenant's ("*"), optionally filtered. */
export interface SubscribeFilter {
  threadId: string;
  /** Exact event types or prefixes such as `compaction.*`. */
  types?: string[];
  agentId?: string;
  /** Replay everything after this seq (per thread); omit for live events only. */
  since?: number;
}

export type ConnectionStatus = "connecting" | "open" | "reconnecting" | "closed";

/**
 * The server cannot resume at `requestedSince` (`expired`: older than its retained log; `ahead`: above its
 * head): reload the thread's state; the stream continues after `resumeAfter`.
 */
export interface ResyncInfo {
  threadId: string;
  reason: "expired" | "ahead" | "bounded";
  requestedSince: number;
  oldestSeq: number;
  resumeAfter: number;
}

export interface SubscriptionHandlers {
  onEvent(event: LongrunEvent): void;
  onStatus?(status: ConnectionStatus, detail?: { attempt?: number; delayMs?: number; reason?: string }): void;
  onResync?(info: ResyncInfo): void;
  onError?(error: Error): void;
}

/** A live subscription handle. */
export interface SubscriptionHandle {
  close(): void;
  /** Highest seq seen for a thread (-1 when none). */
  lastSeq(threadId: string): number;
  /**
   * Resolves when the server confirmed the first subscribe; rejects if it refused it, or if the
   * subscription was closed (or the client closed) before the server confirmed it.
   */
  ready: Promise<void>;
}

const EPHEMERAL_TYPE = "message.delta";
/** Acknowledge at least this often so the server's unacknowledged window never fills. */
const ACK_BATCH = 100;

/**
 * Client side of one subscription: remembers the last seq seen per thread so a reconnect resumes exactly
 * there, drops anything at or below it (a second guard behind the server's own de-duplication), and
 * collects the acknowledgements the server's flow control waits for.
 */
export class ClientSubscription {
  private readonly seen = new Map<string, number>();
  private readonly toAck = new Map<string, number>();
  private unackedCount = 0;
  private established = false;
  private settle: { resolve: () => void; reject: (error: Error) => void } | null = null;
  readonly ready: Promise<void>;

  constructor(
    readonly id: string,
    readonly filter: SubscribeFilter,
    readonly handlers: SubscriptionHandlers,
    private readonly requestAckFlush: (urgent: boolean) => void,
  ) {
    this.ready = new Promise<void>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    // Callers that never await `ready` must not crash the process with an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** The subscribe frame for the next (re)connect: resumes from what was seen. */
  subscribeFrame(): ClientFrame {
    const { threadId, types, agentId, since } = this.filter;
    const base = {
      type: "subscribe" as const,
      id: this.id,
      threadId,
      ...(types ? { types } : {}),
      ...(agentId ? { agentId } : {}),
    };
    if (threadId !== "*") {
      const resume = this.seen.get(threadId) ?? since;
      return { ...base, ...(resume === undefined ? {} : { since: resume }) };
    }
    if (!this.established) return { ...base, ...(since === undefined ? {} : { since }) };
    // Threads never seen were created while away (or had nothing matching): owed from their beginning.
    return { ...base, since: since ?? -1, sinceByThread: Object.fromEntries(this.seen) };
  }

  /** The server accepted the subscription; the first time, fixes the resume points of live-only starts. */
  onSubscribed(headSeq: number, heads: Record<string, number> | undefined): void {
    if (this.established) return;
    this.established = true;
    const start = this.filter.since;
    if (this.filter.threadId !== "*") {
      if (!this.seen.has(this.filter.threadId)) this.seen.set(this.filter.threadId, start ?? headSeq);
    } else if (start === undefined) {
      for (const [threadId, head] of Object.entries(heads ?? {})) {
        if (!this.seen.has(threadId)) this.seen.set(threadId, head);
      }
    }
    this.settle?.resolve();
    this.settle = null;
  }

  /** Delivers one event unless it was already seen. */
  onEvent(event: LongrunEvent): void {
    if (event.type === EPHEMERAL_TYPE) {
      this.handlers.onEvent(event);
      return;
    }
    const acked = this.toAck.get(event.threadId);
    if (acked === undefined || event.seq > acked) this.toAck.set(event.threadId, event.seq);
    this.unackedCount += 1;
    this.requestAckFlush(this.unackedCount >= ACK_BATCH);
    const last = this.seen.get(event.threadId) ?? -1;
    if (event.seq <= last) return;
    this.seen.set(event.threadId, event.seq);
    this.handlers.onEvent(event);
  }

  /** The server restarts the thread's stream after `info.resumeAfter`; later resumes start there too. */
  onResync(info: ResyncInfo): void {
    this.seen.set(info.threadId, info.resumeAfter);
    this.handlers.onResync?.(info);
  }

  /** Pending acknowledgements as frames; clears them. */
  takeAcks(): ClientFrame[] {
    const frames: ClientFrame[] = [];
    for (const [threadId, seq] of this.toAck) frames.push({ type: "ack", id: this.id, threadId, seq });
    this.toAck.clear();
    this.unackedCount = 0;
    return frames;
  }

  /** A new socket starts with nothing outstanding. */
  resetAcks(): void {
    this.toAck.clear();
    this.unackedCount = 0;
  }

  /** The server refused the subscription (or it failed for good). */
  fail(error: Error): void {
    if (this.settle) {
      this.settle.reject(error);
      this.settle = null;
    }
    this.handlers.onError?.(error);
  }

  /**
   * The subscription ends on this side (closed, or the client closed): a `ready` still waiting for the
   * server's confirmation rejects now, since the confirmation will never be delivered.
   */
  abandon(error: Error): void {
    this.settle?.reject(error);
    this.settle = null;
  }

  lastSeq(threadId: string): number {
    return this.seen.get(threadId) ?? (threadId === this.filter.threadId ? (this.filter.since ?? -1) : -1);
  }
}
