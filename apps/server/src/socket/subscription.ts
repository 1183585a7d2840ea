import type { SubscribeFrame } from "@longrun/protocol";
import { AckWindow } from "./ack-window.ts";
import { EventFilter } from "./event-filter.ts";
import type { LiveListener } from "./live-fanout.ts";
import { expiredResync, resumeAtResync } from "./resync.ts";
import type { SubscriptionContext, SubscriptionStart, ThreadState } from "./subscription-context.ts";
import type { LiveEvent, SessionTransport } from "./types.ts";

export type { SubscriptionContext, SubscriptionStart } from "./subscription-context.ts";

const ALL_THREADS = "*";
/** Not persisted: never replayed, never counted against acknowledgements, dropped when congested. */
const EPHEMERAL_TYPE = "message.delta";

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
  private readonly window: AckWindow;
  private readonly maxBufferedBytes: number;
  private readonly transport: SessionTransport;
  private readonly filter: EventFilter;
  private attached = false;
  private running = false;
  private started = false;
  private live = false;
  private closed = false;
  /** Threads whose start lies below their head when the subscription started: they need a replay. */
  private readonly behind = new Set<string>();
  /** Threads whose requested start lay above their head: requested seq and head, answered with a resync. */
  private readonly ahead = new Map<string, { requested: number; head: number }>();
  /** Threads whose replay was cut to their share of the wildcard bound: requested start and new start. */
  private readonly bounded = new Map<string, { requested: number; resumeAfter: number }>();

  constructor(
    private readonly frame: SubscribeFrame,
    private readonly context: SubscriptionContext,
  ) {
    this.id = frame.id;
    this.scope = frame.threadId;
    this.window = new AckWindow(context.options.maxUnacked, context.options.stallTimeoutMs, () =>
      context.slow("slow consumer"),
    );
    this.maxBufferedBytes = context.options.maxBufferedBytes;
    this.transport = context.transport;
    this.filter = new EventFilter(frame);
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
    this.boundReplay(heads);
    return { headSeq: Math.max(-1, ...Object.values(heads)), heads };
  }

  /**
   * A subscription to every thread replays at most `maxWildcardReplay` events: past it, each thread
   * behind keeps its newest share of the bound and is told where its stream starts (resync `bounded`).
   */
  private boundReplay(heads: Record<string, number>): void {
    const bound = this.context.options.maxWildcardReplay;
    const owed = (threadId: string) => (heads[threadId] ?? 0) - (this.threads.get(threadId)?.cursor ?? 0);
    let total = 0;
    for (const threadId of this.behind) total += owed(threadId);
    if (total <= bound) return;
    const share = Math.floor(bound / this.behind.size);
    for (const threadId of [...this.behind]) {
      const state = this.thread(threadId);
      const head = heads[threadId] ?? 0;
      const requested = state.cursor ?? -1;
      if (head - requested <= share) continue;
      const resumeAfter = head - share;
      state.cursor = resumeAfter;
      this.bounded.set(threadId, { requested, resumeAfter });
      if (resumeAfter >= head) this.behind.delete(threadId);
    }
  }

  /** Replays from each thread's start, then processes live events until closed. */
  async run(): Promise<void> {
    for (const [threadId, { requested, head }] of this.ahead) {
      const frame = await resumeAtResync(this.context.deps, this.id, threadId, "ahead", requested, head);
      if (this.closed) return;
      this.context.send(frame);
    }
    this.ahead.clear();
    for (const [threadId, { requested, resumeAfter }] of this.bounded) {
      const frame = await resumeAtResync(
        this.context.deps,
        this.id,
        threadId,
        "bounded",
        requested,
        resumeAfter,
      );
      if (this.closed) return;
      this.context.send(frame);
    }
    this.bounded.clear();
    for (const threadId of this.behind) this.catchUp.add(threadId);
    this.behind.clear();
    this.started = true;
    await this.pump();
    this.live = true;
  }

  /** Handles a client acknowledgement of everything up to `seq` of a thread. */
  acknowledge(threadId: string | undefined, seq: number): void {
    const pending = this.threads.get(threadId ?? this.frame.threadId)?.unacked;
    if (pending) this.window.acknowledge(pending, seq);
  }

  /** Detaches from live events and releases anything waiting. */
  close(): void {
    this.closed = true;
    if (this.attached) this.context.fanout.remove(this);
    this.attached = false;
    this.queue.length = 0;
    this.window.close();
  }

  /** Number of events sent and not yet acknowledged. */
  unackedCount(): number {
    return this.window.count;
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
      if (this.window.waiting) {
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
    if (!this.filter.matches(event)) {
      state.cursor = event.seq;
      return true;
    }
    if (this.window.full) return false;
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
    if (!this.live || this.window.waiting || this.context.congested()) return;
    const visible = this.threads.get(event.threadId)?.visible === true;
    if (!visible && event.tenantId !== this.context.tenantId) return;
    if (!this.filter.matches(event)) return;
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
    const frame = await expiredResync(this.context.deps, this.id, threadId, cursor);
    if (frame) this.context.send(frame);
  }

  private async deliver(state: ThreadState, event: LiveEvent): Promise<void> {
    state.cursor = event.seq;
    if (!this.filter.matches(event)) return;
    if (this.window.full) await this.window.room();
    if (this.closed) return;
    this.transmit(state, event);
  }

  /** Counts the event against the acknowledgement window and sends it. */
  private transmit(state: ThreadState, event: LiveEvent): void {
    this.window.sent(state.unacked, event.seq);
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
}
