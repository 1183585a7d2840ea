import {
  eventTypeMatches,
  type LongrunEvent,
  type ServerFrame,
  type SubscribeFrame,
} from "@longrun/protocol";
import type { GatewayDeps, GatewayOptions, LiveEvent } from "./types.ts";

/** What a subscription needs from its session. */
export interface SubscriptionContext {
  tenantId: string;
  deps: GatewayDeps;
  options: GatewayOptions;
  send(frame: ServerFrame): void;
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

/**
 * One subscription of one session. Every persisted event of a covered thread is delivered exactly once and
 * in seq order: live events are queued from before the replay starts, each thread keeps a cursor (highest
 * seq processed), duplicates fall below it, and a hole above it is filled from the durable log, which is
 * the source of truth (live fan-out is only a hint that the log grew).
 */
export class Subscription {
  readonly id: string;
  private readonly cursors = new Map<string, number>();
  private readonly access = new Map<string, boolean>();
  private readonly queue: LiveEvent[] = [];
  /** Threads whose live events were dropped on overflow; read from the log instead. */
  private readonly catchUp = new Set<string>();
  /** Per thread, seqs sent and not yet acknowledged (ascending). */
  private readonly unacked = new Map<string, number[]>();
  private outstanding = 0;
  private detach: (() => void) | null = null;
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
  }

  /** Authorizes, attaches to live events (buffered), and fixes each thread's start; false when forbidden. */
  async start(): Promise<SubscriptionStart | null> {
    const { deps, tenantId } = this.context;
    const threadId = this.frame.threadId;
    if (threadId !== ALL_THREADS) {
      if (!(await deps.threads.canAccess(tenantId, threadId))) return null;
      this.access.set(threadId, true);
    }
    // Attach before reading heads: anything published from now on is queued, so nothing falls in between.
    this.detach = deps.live.subscribe((event) => this.onLive(event));
    if (threadId !== ALL_THREADS) {
      const head = await deps.log.head(threadId);
      this.setStart(threadId, head);
      return { headSeq: head };
    }
    const heads: Record<string, number> = {};
    for (const id of await deps.threads.listIds(tenantId)) {
      this.access.set(id, true);
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
    const pending = this.unacked.get(threadId ?? this.frame.threadId);
    if (!pending) return;
    let released = 0;
    while (released < pending.length && (pending[released] ?? Number.POSITIVE_INFINITY) <= seq) released += 1;
    pending.splice(0, released);
    this.outstanding -= released;
    if (this.creditWaiter && this.outstanding < this.context.options.maxUnacked) {
      const resolve = this.creditWaiter;
      this.creditWaiter = null;
      this.clearStall();
      resolve();
    }
  }

  /** Detaches from live events and releases anything waiting. */
  close(): void {
    this.closed = true;
    this.detach?.();
    this.detach = null;
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
    this.cursors.set(threadId, Math.min(start, head));
    if (start < head) this.behind.add(threadId);
  }

  private onLive(event: LiveEvent): void {
    if (this.closed) return;
    if (!this.inScope(event)) return;
    if (event.type === EPHEMERAL_TYPE) {
      this.forwardEphemeral(event);
      return;
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

  /** Cheap synchronous scope check; "*" access for threads without a tenant stamp is settled in the pump. */
  private inScope(event: LiveEvent): boolean {
    if (this.frame.threadId !== ALL_THREADS) return event.threadId === this.frame.threadId;
    if (event.tenantId !== undefined) return event.tenantId === this.context.tenantId;
    return this.access.get(event.threadId) !== false;
  }

  private forwardEphemeral(event: LiveEvent): void {
    if (!this.live || this.creditWaiter || this.context.congested()) return;
    if (this.access.get(event.threadId) !== true && event.tenantId !== this.context.tenantId) return;
    if (!this.matches(event)) return;
    this.context.send({ type: "event", subscription: this.id, event });
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
    const known = this.access.get(threadId);
    if (known !== undefined) return known;
    const allowed =
      tenantId !== undefined
        ? tenantId === this.context.tenantId
        : await this.context.deps.threads.canAccess(this.context.tenantId, threadId);
    this.access.set(threadId, allowed);
    return allowed;
  }

  private async processLive(event: LiveEvent): Promise<void> {
    const cursor = this.cursors.get(event.threadId);
    // A thread first seen live (created after the subscription started) is owed from its beginning.
    const current = cursor ?? -1;
    if (cursor === undefined) this.cursors.set(event.threadId, current);
    if (event.seq <= current) return;
    if (event.seq > current + 1) await this.readLog(event.threadId);
    if (event.seq > (this.cursors.get(event.threadId) ?? -1)) await this.deliver(event);
  }

  /** Reads the durable log after the thread's cursor until it is exhausted. */
  private async readLog(threadId: string): Promise<void> {
    const { deps, options } = this.context;
    for (;;) {
      if (this.closed) return;
      const cursor = this.cursors.get(threadId) ?? -1;
      const page = await deps.log.after(threadId, cursor, options.replayPageSize);
      const first = page[0];
      if (first && first.seq > cursor + 1) await this.checkRetention(threadId, cursor);
      for (const event of page) {
        if (this.closed) return;
        if (event.seq > (this.cursors.get(threadId) ?? -1)) await this.deliver(event);
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

  private async deliver(event: LiveEvent): Promise<void> {
    this.cursors.set(event.threadId, event.seq);
    if (!this.matches(event)) return;
    if (this.outstanding >= this.context.options.maxUnacked) await this.waitForCredit();
    if (this.closed) return;
    let pending = this.unacked.get(event.threadId);
    if (!pending) {
      pending = [];
      this.unacked.set(event.threadId, pending);
    }
    pending.push(event.seq);
    this.outstanding += 1;
    this.context.send({ type: "event", subscription: this.id, event });
  }

  private matches(event: LongrunEvent): boolean {
    if (this.frame.agentId !== undefined && event.agentId !== this.frame.agentId) return false;
    return eventTypeMatches(event.type, this.frame.types);
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
