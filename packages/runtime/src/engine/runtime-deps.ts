import type { Tokenizer } from "@longrun/compaction";
import type { Store } from "@longrun/store";
import type OpenAI from "openai";
import type { Breaker } from "../breaker/index.ts";
import type { MessageCounter } from "../tokens/message-counter.ts";
import type { ToolRegistry } from "../tools/index.ts";
import type { EventSink } from "./event-sink.ts";

/** Jobs the runtime asks for; the worker maps them onto the queue (BullMQ or in-process). */
export interface Scheduler {
  /** `expectSeq`: the agent's last seq when known (else it is read from the log). */
  step(job: StepJob, options?: { delayMs?: number; jobId?: string; expectSeq?: number }): Promise<void>;
  compact(job: CompactJob): Promise<void>;
  /** Drops queued (not running) jobs of a run; returns how many went. */
  cancelRun(runId: string): Promise<number>;
  /** Agents that have a job waiting, delayed or running right now (the reconciler's liveness view). */
  liveAgents(): Promise<Set<string>>;
  /** False while the queue is unreachable: new work is refused at once instead of hanging. */
  available?(): boolean;
}

export interface StepJob {
  threadId: string;
  agentId: string;
  runId: string;
  /** Set on the step that follows an overflow compaction: a second overflow ends the agent. */
  afterOverflow?: boolean;
  /** Set after a compaction found nothing to summarize: go on without asking for another one. */
  compactionDeferred?: boolean;
}

export interface CompactJob {
  threadId: string;
  agentId: string;
  runId: string;
  trigger: "auto" | "manual" | "overflow";
  strategy?: "partial" | "full";
}

/** A short-lived exclusive hold on one agent, with a fencing token the store checks on append. */
export interface AgentLease {
  /**
   * The lease, or null while someone else holds it. The token is above `floor` (the highest token
   * the database has seen) and above every token this lease store handed out before.
   */
  acquire(
    key: string,
    ttlMs: number,
    options?: { floor?: number },
  ): Promise<{ token: number; release(): Promise<unknown>; renew(): Promise<boolean> } | null>;
  /** True while someone holds the lease (the reconciler leaves such agents alone). */
  isHeld(key: string): Promise<boolean>;
}

/** Everything one step or compaction needs; the same object in embedded and distributed mode. */
export interface RuntimeDeps {
  store: Store;
  model: OpenAI;
  tools: ToolRegistry;
  breaker: Breaker;
  events: EventSink;
  scheduler: Scheduler;
  lease: AgentLease;
  tokenizer: Tokenizer;
  now: () => number;
  /** IANA zone the summarizer is told, so relative dates survive. */
  timeZone: string;
  /** Extra request headers per agent (tests inject sim-model faults this way). */
  modelHeaders?: (agentId: string) => Record<string, string> | undefined;
  /**
   * Counts a message's tokens before its write transaction, large ones off the event loop; without it
   * the store counts inline (tests).
   */
  counter?: MessageCounter;
  /** Provider retry policy; tests shorten it. */
  retry?: { maxAttempts?: number; baseMs?: number; maxMs?: number };
}
