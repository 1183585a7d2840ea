import { ConnectionError, TimeoutError } from "./errors.ts";

interface PendingCommand {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** Commands sent on the socket and not yet acknowledged, each with its own timeout. */
export class PendingCommands {
  private readonly pending = new Map<string, PendingCommand>();

  constructor(
    private readonly timeoutMs: number,
    /** Called when a command timed out and left the set. */
    private readonly onTimeout: () => void,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  has(id: string): boolean {
    return this.pending.has(id);
  }

  /** Waits for command `id`'s acknowledgement, rejecting with `unavailable` after the timeout. */
  wait(id: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new TimeoutError("command timed out", { code: "unavailable" }));
        this.onTimeout();
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
    });
  }

  /** Settles command `id` with the server's answer; false when it is not pending (timed out, or unknown). */
  settle(id: string, outcome: { ok: true; result: unknown } | { ok: false; error: Error }): boolean {
    const command = this.pending.get(id);
    if (!command) return false;
    clearTimeout(command.timer);
    this.pending.delete(id);
    if (outcome.ok) command.resolve(outcome.result);
    else command.reject(outcome.error);
    return true;
  }

  /** Rejects every pending command with `unavailable` (the socket closed, or the client did). */
  rejectAll(reason: string): void {
    for (const [id, command] of this.pending) {
      clearTimeout(command.timer);
      this.pending.delete(id);
      command.reject(new ConnectionError(reason, { code: "unavailable" }));
    }
  }
}
