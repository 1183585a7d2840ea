/**
 * A subscription's acknowledgement window: how many events were sent and not yet acknowledged, and the
 * wait for room when the window is full. The window, not the socket buffer, bounds how far a reader may
 * fall behind (kernel buffers hide that); a reader that leaves it full for `stallTimeoutMs` is slow.
 */
export class AckWindow {
  private outstanding = 0;
  private waiter: (() => void) | null = null;
  private stallTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly maxUnacked: number,
    private readonly stallTimeoutMs: number,
    private readonly onStall: () => void,
  ) {}

  /** Events sent and not yet acknowledged. */
  get count(): number {
    return this.outstanding;
  }

  /** No room for another event. */
  get full(): boolean {
    return this.outstanding >= this.maxUnacked;
  }

  /** Someone waits for room (the pump is blocked on this reader). */
  get waiting(): boolean {
    return this.waiter !== null;
  }

  /** Counts an event sent for `seq` on a thread's list of unacknowledged seqs. */
  sent(unacked: number[], seq: number): void {
    unacked.push(seq);
    this.outstanding += 1;
  }

  /** Releases every seq up to `seq` from a thread's list; wakes the waiter when there is room again. */
  acknowledge(unacked: number[], seq: number): void {
    let released = 0;
    while (released < unacked.length && (unacked[released] ?? Number.POSITIVE_INFINITY) <= seq) released += 1;
    unacked.splice(0, released);
    this.outstanding -= released;
    if (this.waiter && !this.full) this.wake();
  }

  /** Resolves when there is room (or the window is closed); a reader that takes too long is slow. */
  room(): Promise<void> {
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.stallTimer = setTimeout(this.onStall, this.stallTimeoutMs);
    });
  }

  /** Releases any waiter (the subscription closed). */
  close(): void {
    this.wake();
  }

  private wake(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = null;
    const resolve = this.waiter;
    this.waiter = null;
    resolve?.();
  }
}
