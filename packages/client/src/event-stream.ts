import type { LongrunEvent } from "@longrun/protocol";
import type { ResyncInfo, SubscriptionHandle, SubscriptionHandlers } from "./client-subscription.ts";
import { AbortError, LongrunError } from "./errors.ts";

/** Options of `threads.stream`. */
export interface StreamOptions {
  /** Replay every event after this seq, then go on live; omit for live events only. */
  since?: number;
  /** Exact event types or prefixes such as `compaction.*`. */
  types?: string[];
  agentId?: string;
  /** Ends the iteration with an AbortError. */
  signal?: AbortSignal;
  /** Connection news: `reconnecting` (with the reason and delay) while the server is away, `open` again. */
  onStatus?: SubscriptionHandlers["onStatus"];
  /** The server no longer holds events after `requestedSince`: reload the thread; the stream goes on. */
  onResync?: (info: ResyncInfo) => void;
}

type Subscribe = (handlers: SubscriptionHandlers) => SubscriptionHandle;

/**
 * A thread's events as an async iterator: `for await (const event of stream)`. Resume is the
 * subscription's: after a lost connection or a server restart it resubscribes after the last seq it
 * yielded, so nothing is missing or doubled. `break` (or `close()`) ends the subscription.
 */
export class EventStream<Event = LongrunEvent> implements AsyncIterable<Event> {
  private readonly queue: Event[] = [];
  private waiting: {
    resolve: (result: IteratorResult<Event>) => void;
    reject: (error: Error) => void;
  } | null = null;
  private failure: Error | null = null;
  private ended = false;
  private readonly handle: SubscriptionHandle;
  /** Resolves when the server confirmed the subscription (events after it are live); rejects if the stream ended first. */
  readonly ready: Promise<void>;

  constructor(
    subscribe: Subscribe,
    private readonly threadId: string,
    options: StreamOptions,
    /** Maps each event to what the iterator yields, or to `undefined` to skip it; `done` ends after it. */
    private readonly select: (event: LongrunEvent) => { value?: Event; done?: boolean } = (event) => ({
      value: event as Event,
    }),
  ) {
    const { signal } = options;
    let lastError: Error | undefined;
    this.handle = subscribe({
      onEvent: (event) => this.push(event),
      onStatus: (status, detail) => {
        options.onStatus?.(status, detail);
        // Closed with a reason: the server refused the subscription for good (token revoked, thread gone).
        if (status === "closed" && detail?.reason)
          this.fail(lastError ?? new LongrunError(detail.reason, { code: "unavailable" }));
      },
      ...(options.onResync ? { onResync: options.onResync } : {}),
      // Transient errors are followed by a resubscribe from the last seq; only a final one ends the stream.
      onError: (error) => {
        lastError = error;
      },
    });
    this.handle.ready.catch((error: Error) => this.fail(error));
    // Ended before the server confirmed (aborted, closed): `ready` rejects with the stream's own reason,
    // so a caller awaiting it learns why (an AbortError from its signal), rather than waiting forever.
    this.ready = this.handle.ready.catch((error: Error) => {
      throw this.failure ?? error;
    });
    this.ready.catch(() => undefined);
    if (signal) {
      const onAbort = () => this.fail(new AbortError("the stream was aborted", { cause: signal.reason }));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
  }

  /** The highest seq yielded so far (or the `since` it started after). */
  get lastSeq(): number {
    return this.handle.lastSeq(this.threadId);
  }

  /** Ends the stream: a pending `next()` resolves as done. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.handle.close();
    this.settle();
  }

  [Symbol.asyncIterator](): AsyncIterator<Event> {
    return {
      next: () => {
        const value = this.queue.shift();
        if (value !== undefined) return Promise.resolve({ done: false, value });
        if (this.failure) return Promise.reject(this.failure);
        if (this.ended) return Promise.resolve({ done: true, value: undefined });
        return new Promise((resolve, reject) => {
          this.waiting = { resolve, reject };
        });
      },
      return: () => {
        this.close();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  private push(event: LongrunEvent): void {
    if (this.ended) return;
    const { value, done } = this.select(event);
    if (value !== undefined) {
      if (this.waiting) {
        const waiting = this.waiting;
        this.waiting = null;
        waiting.resolve({ done: false, value });
      } else this.queue.push(value);
    }
    if (done) this.close();
  }

  private fail(error: Error): void {
    if (this.ended) return;
    this.failure = error;
    this.ended = true;
    this.handle.close();
    this.settle();
  }

  private settle(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = null;
    if (this.failure) waiting.reject(this.failure);
    else waiting.resolve({ done: true, value: undefined });
  }
}
