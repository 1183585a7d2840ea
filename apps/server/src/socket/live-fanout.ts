import type { LiveEvent, SocketDeps } from "./types.ts";

/** What the fan-out calls for each live event in a listener's scope. */
export interface LiveListener {
  /** A thread id, or "*" for every thread (the listener filters by tenant itself). */
  readonly scope: string;
  onLive(event: LiveEvent): void;
}

const ALL_THREADS = "*";

/**
 * One attachment to the live event source for many subscriptions, indexed by thread: an event reaches
 * the subscriptions of its own thread and the "*" ones, not every subscription of the server. Listener
 * lists are replaced, never mutated, so a listener may leave (a slow consumer closed) during a dispatch.
 */
export class LiveFanout {
  private readonly byThread = new Map<string, LiveListener[]>();
  private wildcard: LiveListener[] = [];
  private size = 0;
  private detach: (() => void) | null = null;

  constructor(private readonly source: SocketDeps["live"]) {}

  /** Starts delivering live events to `listener`, synchronously (nothing published after this is missed). */
  add(listener: LiveListener): void {
    if (listener.scope === ALL_THREADS) this.wildcard = [...this.wildcard, listener];
    else this.byThread.set(listener.scope, [...(this.byThread.get(listener.scope) ?? []), listener]);
    this.size += 1;
    this.detach ??= this.source.subscribe(this.dispatch);
  }

  remove(listener: LiveListener): void {
    if (listener.scope === ALL_THREADS) {
      const rest = this.wildcard.filter((entry) => entry !== listener);
      if (rest.length === this.wildcard.length) return;
      this.wildcard = rest;
    } else {
      const current = this.byThread.get(listener.scope) ?? [];
      const rest = current.filter((entry) => entry !== listener);
      if (rest.length === current.length) return;
      if (rest.length === 0) this.byThread.delete(listener.scope);
      else this.byThread.set(listener.scope, rest);
    }
    this.size -= 1;
    if (this.size === 0) {
      this.detach?.();
      this.detach = null;
    }
  }

  private readonly dispatch = (event: LiveEvent): void => {
    const listeners = this.byThread.get(event.threadId);
    if (listeners !== undefined) for (const listener of listeners) listener.onLive(event);
    for (const listener of this.wildcard) listener.onLive(event);
  };
}
