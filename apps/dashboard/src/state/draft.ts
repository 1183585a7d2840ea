import { MessageLog } from "./message-log.ts";
import type { Measurement, ThreadState, ToolActivity, TranscriptMessage } from "./thread-state.ts";

/**
 * A shallow working copy of a ThreadState: each record is copied at most once per batch, so applying
 * a replay of thousands of events stays linear while the input state is never mutated.
 */
export class Draft {
  private readonly copied = new Set<string>();
  /** Messages put in during the batch, per agent, by id: added to the agents' logs once, by finish. */
  private readonly putMessages = new Map<string, Map<string, TranscriptMessage>>();
  /** Tool calls put in during the batch, by call id: added to the thread's calls once, by finish. */
  private readonly putTools = new Map<string, ToolActivity>();
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

  /** Puts a message into its agent's log (at finish: one append per batch, not a copy of the log). */
  putMessage(agentId: string, message: TranscriptMessage): void {
    const put = this.putMessages.get(agentId) ?? new Map<string, TranscriptMessage>();
    this.putMessages.set(agentId, put);
    put.set(message.id, message);
  }

  /** An agent's message as the batch left it so far. */
  message(agentId: string, id: string): TranscriptMessage | undefined {
    return this.putMessages.get(agentId)?.get(id) ?? this.next.messages[agentId]?.get(id);
  }

  /** Puts a tool call in (at finish: the batch's calls added at once, not a copy of every call). */
  putTool(tool: ToolActivity): void {
    this.putTools.set(tool.callId, tool);
  }

  /** A tool call as the batch left it so far. */
  tool(callId: string): ToolActivity | undefined {
    return this.putTools.get(callId) ?? this.next.tools.get(callId);
  }

  /** The state the batch made. */
  finish(): ThreadState {
    if (this.putTools.size > 0) {
      this.next.tools = this.next.tools.with(this.putTools.values());
      this.putTools.clear();
    }
    if (this.putMessages.size > 0) {
      const messages = this.record("messages");
      for (const [agentId, put] of this.putMessages)
        messages[agentId] = (messages[agentId] ?? MessageLog.empty).with([...put.values()]);
      this.putMessages.clear();
    }
    return this.next;
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
  | "runs"
  | "streaming"
  | "breakers"
  | "decisions"
  | "activity";
