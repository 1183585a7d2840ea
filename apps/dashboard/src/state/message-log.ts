import type { TranscriptMessage } from "./thread-state.ts";

/**
 * Messages in seq order with what is derived from them, shared by every log that is a prefix of it.
 * An item, once pushed, never changes: a log is a (store, size) pair and reads only below its size.
 */
interface Store {
  readonly items: TranscriptMessage[];
  readonly byId: Map<string, number>;
  /** Indexes of the assistant messages that made each tool call, and of the tool messages answering it. */
  readonly callers: Map<string, number[]>;
  readonly answers: Map<string, number[]>;
}

/**
 * One agent's messages, each id once, in seq order, immutable. A streamed batch of newer messages is
 * appended to the store this log shares with the one before (that one still reads only its own size),
 * so a batch costs its own messages, not a copy of the whole record; anything else (a replaced message,
 * an earlier part of the log read, a second batch on a log that is no longer the newest) builds anew.
 */
export class MessageLog implements Iterable<TranscriptMessage> {
  static readonly empty = MessageLog.from([]);

  private constructor(
    private readonly store: Store,
    readonly size: number,
  ) {}

  /** A log of these messages (a later one with an id already given replaces it). */
  static from(messages: Iterable<TranscriptMessage>): MessageLog {
    const byId = new Map<string, TranscriptMessage>();
    for (const message of messages) byId.set(message.id, message);
    const items = [...byId.values()].sort(bySeq);
    const store: Store = { items: [], byId: new Map(), callers: new Map(), answers: new Map() };
    for (const message of items) push(store, message);
    return new MessageLog(store, items.length);
  }

  get(id: string): TranscriptMessage | undefined {
    const index = this.store.byId.get(id);
    return index !== undefined && index < this.size ? this.store.items[index] : undefined;
  }

  at(index: number): TranscriptMessage | undefined {
    return index >= 0 && index < this.size ? this.store.items[index] : undefined;
  }

  /** The log with these messages put in (by id: a known id is replaced). */
  with(messages: readonly TranscriptMessage[]): MessageLog {
    if (messages.length === 0) return this;
    const added = [...new Map(messages.map((message) => [message.id, message])).values()].sort(bySeq);
    const last = this.at(this.size - 1);
    const appends =
      this.size === this.store.items.length &&
      (last === undefined || bySeq(last, added[0]!) < 0) &&
      added.every((message) => this.get(message.id) === undefined);
    if (!appends) return MessageLog.from([...this, ...added]);
    for (const message of added) push(this.store, message);
    return new MessageLog(this.store, this.store.items.length);
  }

  /** Whether this log is `earlier` with messages appended: its first `earlier.size` are the same objects. */
  extends(earlier: MessageLog): boolean {
    return earlier.store === this.store && earlier.size <= this.size;
  }

  /** Index of the first message with seq >= `seq`. */
  lowerBound(seq: number): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.store.items[middle]?.seq ?? 0) < seq) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Indexes (ascending) of the messages that made this tool call. */
  callers(callId: string): number[] {
    return below(this.store.callers.get(callId), this.size);
  }

  /** Indexes (ascending) of the tool messages answering this call. */
  answers(callId: string): number[] {
    return below(this.store.answers.get(callId), this.size);
  }

  /** Whether a message of the log made this call. */
  hasCall(callId: string): boolean {
    return (this.store.callers.get(callId)?.[0] ?? this.size) < this.size;
  }

  /** Its messages (only its own: a later log's share of the store is not part of it). */
  toJSON(): TranscriptMessage[] {
    return [...this];
  }

  *[Symbol.iterator](): Iterator<TranscriptMessage> {
    for (let index = 0; index < this.size; index++) yield this.store.items[index]!;
  }
}

function push(store: Store, message: TranscriptMessage): void {
  const index = store.items.length;
  store.items.push(message);
  store.byId.set(message.id, index);
  for (const call of message.toolCalls ?? []) listAt(store.callers, call.id).push(index);
  if (message.role === "tool" && message.toolCallId) listAt(store.answers, message.toolCallId).push(index);
}

function listAt(map: Map<string, number[]>, key: string): number[] {
  const list = map.get(key) ?? [];
  map.set(key, list);
  return list;
}

function below(list: readonly number[] | undefined, size: number): number[] {
  if (!list) return [];
  let end = list.length;
  while (end > 0 && list[end - 1]! >= size) end--;
  return end === list.length ? (list as number[]) : list.slice(0, end);
}

/** Seq order; two messages at one seq (never in a real log) by id, so the order never depends on arrival. */
export function bySeq(left: TranscriptMessage, right: TranscriptMessage): number {
  return left.seq - right.seq || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}
