/**
 * Runs write transactions one at a time. libSQL statements run synchronously, so a second
 * `BEGIN IMMEDIATE` in the same process would block the event loop that the first one needs in
 * order to commit (NOTES.md): every writer to one database in a process goes through one queue.
 */
export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Runs `task` after every task queued before it has settled. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending += 1;
    const result = this.#tail.then(task, task);
    this.#tail = result.then(
      () => this.#settle(),
      () => this.#settle(),
    );
    return result;
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }

  #settle(): void {
    this.#pending -= 1;
  }
}

const queues = new Map<string, { queue: WriteQueue; users: number }>();

/** The process-wide queue for one database (same key, same queue), counted so it can be released. */
export function acquireWriteQueue(key: string): WriteQueue {
  const entry = queues.get(key) ?? { queue: new WriteQueue(), users: 0 };
  entry.users += 1;
  queues.set(key, entry);
  return entry.queue;
}

/** Gives back a queue taken with `acquireWriteQueue`. */
export function releaseWriteQueue(key: string): void {
  const entry = queues.get(key);
  if (!entry) return;
  entry.users -= 1;
  if (entry.users <= 0) queues.delete(key);
}
