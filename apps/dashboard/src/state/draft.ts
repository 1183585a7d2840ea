import type { Measurement, ThreadState, TranscriptMessage } from "./thread-state.ts";

/**
 * A shallow working copy of a ThreadState: each record is copied at most once per batch, so applying
 * a replay of thousands of events stays linear while the input state is never mutated.
 */
export class Draft {
  private readonly copied = new Set<string>();
  readonly next: ThreadState;

  constructor(base: ThreadState) {
    this.next = { ...base };
  }

  /** The writable copy of a top-level record of the state. */
  record<Key extends RecordKey>(key: Key): ThreadState[Key] {
    if (!this.copied.has(key)) {
      this.copied.add(key);
      (this.next as unknown as Record<string, unknown>)[key] = { ...this.next[key] };
    }
    return this.next[key];
  }

  /** The writable copy of one agent's message record. */
  agentMessages(agentId: string): Record<string, TranscriptMessage> {
    const messages = this.record("messages");
    const key = `messages:${agentId}`;
    if (!this.copied.has(key)) {
      this.copied.add(key);
      messages[agentId] = { ...messages[agentId] };
    }
    return messages[agentId]!;
  }

  /** The writable copy of one agent's measurement series: copied once per batch, then appended to. */
  agentMeasurements(agentId: string): Measurement[] {
    const measurements = this.record("measurements");
    const key = `measurements:${agentId}`;
    if (!this.copied.has(key)) {
      this.copied.add(key);
      measurements[agentId] = [...(measurements[agentId] ?? [])];
    }
    return measurements[agentId]!;
  }
}

export type RecordKey =
  | "agents"
  | "messages"
  | "messagesReadFrom"
  | "compactions"
  | "measurements"
  | "approvals"
  | "tools"
  | "runs"
  | "streaming"
  | "breakers"
  | "decisions"
  | "activity";
