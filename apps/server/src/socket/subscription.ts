import {
  eventTypeMatches,
  type LongrunEvent,
  type ServerFrame,
  type SubscribeFrame,
} from "@longrun/protocol";
import type { LiveFanout, LiveListener } from "./live-fanout.ts";
import type { LiveEvent, SessionTransport, SocketDeps, SocketOptions } from "./types.ts";

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

const ALL_THREADS = "*";
/** Not persisted: never replayed, never counted against acknowledgements, dropped when congested. */
const EPHEMERAL_TYPE = "message.delta";

/** Delivery state of one thread within a subscription. */
interface ThreadState {
  /** Highest seq processed (sent or filtered out); undefined until the thread's start is known. */
  cursor: number | undefined;
  /** Whether the tenant may see the thread; undefined until checked. */
  visible: boolean | undefined;
  /** Seqs sent and not yet acknowledged, ascending. */
  unacked: number[];
}

/**
 * One subscription of one session. Every persisted event of a covered thread is delivered exactly once and
 * in seq order: live events are queued from before the replay starts, each thread keeps a cursor (highest
 * seq processed), duplicates fall below it, and a hole above it is filled from the durable log, which is
 * the source of truth (live fan-out is only a hint that the log grew).
 */
export class Subscription implements LiveListener {
  readonly id: string;
  readonly scope: string;
  private readonly threads = new Map<string, ThreadState>();
  /** The one thread of a single-thread subscription: the hot path reads it without a map lookup. */
  private single: ThreadState | null = null;
  private readonly queue: LiveEvent[] = [];
  /** Threads whose live events were dropped on overflow; read from the log instead. */
  private readonly catchUp = new Set<string>();
  private outstanding = 0;
  private readonly maxUnacked: number;
  private readonly maxBufferedBytes: number;
  private readonly transport: SessionTransport;
  /** No type or agent filter: every event of a visible thread matches. */
  private readonly unfiltered: boolean;
  /** Whether the type filter admits an event type. */
  private readonly admitted = new Map<string, boolean>();
  private attached = false;
  private running = false;
  private started = false;
  private live = false;
  private closed = false;
  private creditWaiter: (() => void) | null = null;
  /** Threads whose start lies below their head when the subscription started: they need a replay. */
  private readonly behind = new Set<string>();
  /** Threads whose requested start lay above their head: requested seq and head, answered with a resync. */
  private readonly ahead = new Map<string, { requested: number; head: number }>();
  private stallTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly frame: SubscribeFrame,
    private readonly context: SubscriptionContext,
  ) {
    this.id = frame.id;
    this.scope = frame.threadId;
    this.maxUnacked = context.options.maxUnacked;
    this.maxBufferedBytes = context.options.maxBufferedBytes;
    this.transport = context.transport;
    this.unfiltered = frame.agentId === undefined && (frame.types === undefined || frame.types.length === 0);
  }

  /** Authorizes, attaches to live events (buffered), and fixes each thread's start; false when forbidden. */
  async start(): Promise<SubscriptionStart | null> {
    const { deps, tenantId } = this.context;
    const threadId = this.frame.threadId;
    if (threadId !== ALL_THREADS) {
      if (!(await deps.threads.canAccess(tenantId, threadId))) return null;
      this.single = this.thread(threadId);
      this.single.visible = true;
    }
    if (this.closed) return null;
    // Attach before reading heads: anything published from now on is queued, so nothing falls in between.
    this.context.fanout.add(this);
    this.attached = true;
    if (threadId !== ALL_THREADS) {
      const head = await deps.log.head(threadId);
      this.setStart(threadId, head);
      return { headSeq: head };
    }
    const heads: Record<string, number> = {};
    for (const id of await deps.threads.listIds(tenantId)) {
      this.thread(id).visible = true;
      const head = await deps.log.head(id);
      heads[id] = head;
      this.setStart(id, head);
    }
    return { headSeq: Math.max(-1, ...Object.values(heads)), heads };
  }

  /** Replays from each thread's start, then processes live events until closed. */
  async run(): Promise<void> {
    for (const [threadId, { requested, head }] of this.ahead) {
      const oldest = await this.context.deps.log.oldest(threadId);
      if (this.closed) return;
      this.context.send({
        type: "resync",
        id: this.id,
        threadId,
        reason: "ahead",
        requestedSince: requested,
        oldestSeq: oldest ?? head + 1,
        resumeAfter: head,
      });
    }
    this.ahead.clear();
    for (const threadId of this.behind) this.catchUp.add(threadId);
    this.behind.clear();
    this.started = true;
    await this.pump();
    this.live = true;
  }

  /** Handles a client acknowledgement of everything up to `seq` of a thread. */
  acknowledge(threadId: string | undefined, seq: number): void {
    const pending = this.threads.get(threadId ?? this.frame.threadId)?.unacked;
    if (!pending) return;
    let released = 0;
    while (released < pending.length && (pending[released] ?? Number.POSITIVE_INFINITY) <= seq) released += 1;
    pending.splice(0, released);
    this.outstanding -= released;
    if (this.creditWaiter && this.outstanding < this.maxUnacked) {
      const resolve = this.creditWaiter;
      this.creditWaiter = null;
      this.clearStall();
      resolve();
    }
  }

  /** Detaches from live events and releases anything waiting. */
  close(): void {
    this.closed = true;
    if (this.attached) this.context.fanout.remove(this);
    this.attached = false;
    this.queue.length = 0;
    this.clearStall();
    this.creditWaiter?.();
    this.creditWaiter = null;
  }

  /** Number of events sent and not yet acknowledged. */
  unackedCount(): number {
    return this.outstanding;
  }

  private setStart(threadId: string, head: number): void {
    const start = this.frame.sinceByThread?.[threadId] ?? this.frame.since ?? head;
    // Above the head nothing would arrive until the head caught up (silence, then a partial stream): the
    // client is told to resync and the stream starts from the head instead.
    if (start > head) this.ahead.set(threadId, { requested: start, head });
    this.thread(threadId).cursor = Math.min(start, head);
    if (start < head) this.behind.add(threadId);
  }

  /** Takes one live event from the fan-out: sends it now when it can, else queues it for the pump. */
  onLive(event: LiveEvent): void {
    if (this.closed) return;
    if (!this.inScope(event)) return;
    if (event.type === EPHEMERAL_TYPE) {
      this.forwardEphemeral(event);
      return;
    }
    if (this.live && !this.running && this.queue.length === 0 && this.catchUp.size === 0) {
      if (this.deliverNow(event)) return;
    }
    this.queue.push(event);
    if (this.queue.length > this.context.options.maxQueued) {
      if (this.creditWaiter) {
        this.context.slow("slow consumer");
        return;
      }
      // The pump is busy but the client keeps up: fold the backlog into log reads to bound memory.
      for (const queued of this.queue) this.catchUp.add(queued.threadId);
      this.queue.length = 0;
    }
    // Before run() nothing is sent: the `subscribed` frame must come first.
    if (this.started && !this.running) void this.pump();
  }

  /**
   * The synchronous path for the common case — the next event of a thread whose visibility is settled,
   * with credit left — so a fan-out costs no promise per subscriber. False leaves the event to the pump
   * (unknown visibility, a hole to fill from the log, or no credit), which keeps its order.
   */
  private deliverNow(event: LiveEvent): boolean {
    const state = this.single ?? this.threads.get(event.threadId);
    if (state === undefined) return false;
    if (state.visible === false) return true;
    const cursor = state.cursor;
    if (state.visible === undefined || cursor === undefined) return false;
    if (event.seq <= cursor) return true;
    if (event.seq !== cursor + 1) return false;
    if (!this.unfiltered && !this.matches(event)) {
      state.cursor = event.seq;
      return true;
    }
    if (this.outstanding >= this.maxUnacked) return false;
    state.cursor = event.seq;
    this.transmit(state, event);
    return true;
  }

  /** Cheap synchronous scope check; "*" access for threads without a tenant stamp is settled in the pump. */
  private inScope(event: LiveEvent): boolean {
    if (this.single !== null) return event.threadId === this.scope;
    if (event.tenantId !== undefined) return event.tenantId === this.context.tenantId;
    return this.threads.get(event.threadId)?.visible !== false;
  }

  private forwardEphemeral(event: LiveEvent): void {
    if (!this.live || this.creditWaiter || this.context.congested()) return;
    const visible = this.threads.get(event.threadId)?.visible === true;
    if (!visible && event.tenantId !== this.context.tenantId) return;
    if (!this.matches(event)) return;
    this.sendEvent(event);
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (!this.closed) {
        const threadId = this.catchUp.values().next().value;
        if (threadId !== undefined) {
          this.catchUp.delete(threadId);
          if (await this.canSee(threadId, undefined)) await this.readLog(threadId);
          continue;
        }
        const event = this.queue.shift();
        if (!event) break;
        if (await this.canSee(event.threadId, event.tenantId)) await this.processLive(event);
      }
    } catch (error) {
      if (!this.closed) this.context.fail(error);
    } finally {
      this.running = false;
    }
  }

  private async canSee(threadId: string, tenantId: string | undefined): Promise<boolean> {
    const known = this.threads.get(threadId)?.visible;
    if (known !== undefined) return known;
    const allowed =
      tenantId !== undefined
        ? tenantId === this.context.tenantId
        : await this.context.deps.threads.canAccess(this.context.tenantId, threadId);
    this.thread(threadId).visible = allowed;
    return allowed;
  }

  private async processLive(event: LiveEvent): Promise<void> {
    const state = this.thread(event.threadId);
    // A thread first seen live (created after the subscription started) is owed from its beginning.
    state.cursor ??= -1;
    if (event.seq <= state.cursor) return;
    if (event.seq > state.cursor + 1) await this.readLog(event.threadId);
    if (event.seq > (state.cursor ?? -1)) await this.deliver(state, event);
  }

  /** Reads the durable log after the thread's cursor until it is exhausted. */
  private async readLog(threadId: string): Promise<void> {
    const { deps, options } = this.context;
    const state = this.thread(threadId);
    for (;;) {
      if (this.closed) return;
      const cursor = state.cursor ?? -1;
      const page = await deps.log.after(threadId, cursor, options.replayPageSize);
      const first = page[0];
      if (first && first.seq > cursor + 1) await this.checkRetention(threadId, cursor);
      for (const event of page) {
        if (this.closed) return;
        if (event.seq > (state.cursor ?? -1)) await this.deliver(state, event);
      }
      if (page.length < options.replayPageSize) return;
    }
  }

  private async checkRetention(threadId: string, cursor: number): Promise<void> {
    const oldest = await this.context.deps.log.oldest(threadId);
    // Seqs start at 1 (the store's numbering); a cursor of -1 or 0 both mean "from the beginning".
    if (oldest === null || oldest <= Math.max(cursor, 0) + 1) return;
    this.context.send({
      type: "resync",
      id: this.id,
      threadId,
      reason: "expired",
      requestedSince: cursor,
      oldestSeq: oldest,
      resumeAfter: oldest - 1,
    });
  }

  private async deliver(state: ThreadState, event: LiveEvent): Promise<void> {
    state.cursor = event.seq;
    if (!this.unfiltered && !this.matches(event)) return;
    if (this.outstanding >= this.maxUnacked) await this.waitForCredit();
    if (this.closed) return;
    this.transmit(state, event);
  }

  /** Counts the event against the acknowledgement window and sends it. */
  private transmit(state: ThreadState, event: LiveEvent): void {
    state.unacked.push(event.seq);
    this.outstanding += 1;
    this.sendEvent(event);
  }

  private sendEvent(event: LiveEvent): void {
    this.transport.sendEvent(this.id, event);
    // On loopback, bufferedAmount stayed at 0 while 189 MiB piled up in kernel buffers: the acknowledgement
    // window is the real bound; this one only catches a socket that stopped taking data at all.
    if (this.transport.bufferedAmount() > this.maxBufferedBytes) this.context.slow("slow consumer");
  }

  /** The thread's delivery state, created on first use. */
  private thread(threadId: string): ThreadState {
    let state = this.threads.get(threadId);
    if (state === undefined) {
      state = { cursor: undefined, visible: undefined, unacked: [] };
      this.threads.set(threadId, state);
    }
    return state;
  }

  private matches(event: LongrunEvent): boolean {
    if (this.frame.agentId !== undefined && event.agentId !== this.frame.agentId) return false;
    let admitted = this.admitted.get(event.type);
    if (admitted === undefined) {
      admitted = eventTypeMatches(event.type, this.frame.types);
      this.admitted.set(event.type, admitted);
    }
    return admitted;
  }

  private waitForCredit(): Promise<void> {
    return new Promise((resolve) => {
      this.creditWaiter = resolve;
      this.stallTimer = setTimeout(
        () => this.context.slow("slow consumer"),
        this.context.options.stallTimeoutMs,
      );
    });
  }

  private clearStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
  }
}
