import type {
  AgentInherit,
  AgentStatus,
  EventData,
  MessageContent,
  RestoredItem,
  RunStatus,
  StageSavings,
  ThreadStatus,
  ToolCall,
  ToolStatus,
  Usage,
} from "@longrun/protocol";
import type { MessageLog } from "./message-log.ts";
import { SeqSet } from "./seq-set.ts";
import { ToolCalls } from "./tool-calls.ts";

export interface AgentNode {
  id: string;
  parentAgentId: string | null;
  name: string;
  status: AgentStatus;
  inherit: AgentInherit;
  brief?: string;
  statusReason?: string;
  /** `waiting`: when the agent tries again (from the agent.status event). */
  statusUntil?: number | undefined;
  /** Seq of the agent.status event the status came from; absent when it came from a REST read. */
  statusSeq?: number;
  /** The parent's spawn_agents call that created this sub-agent (`api:<runId>` when spawned over the API). */
  spawnCallId?: string | null;
  createdAt: number;
}

/** What an agent is doing now: from the snapshot, then kept current by live events. */
export interface AgentActivityView {
  step: number | null;
  tokens: number | null;
  maxInputTokens: number | null;
  tool: { callId: string; name: string; startedAt: number } | null;
  /** The latest completed compaction's size after it, with its event seq (see tokenFigure). */
  compacted?: { tokensAfter: number; seq: number; at: number } | null;
  /** When the current status began. */
  statusSince: number | null;
  lastEventAt: number | null;
}

/** One conversation fact, from a message.completed event or GET /v1/agents/:id/messages. */
export interface TranscriptMessage {
  id: string;
  agentId: string;
  seq: number;
  role: "system" | "user" | "assistant" | "tool";
  content: MessageContent;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  toolStatus?: ToolStatus;
  usage?: Usage;
  at: number;
}

/** A compaction as the user sees it; keyed by compactionKey so started/failed/completed merge. */
/**
 * A completed compaction's cost figures: why an automatic one ran (`must`: over the trigger after the
 * deterministic stages; `cheaper`: the cost model chose it), the saving the cost model expected (billed-
 * equivalent input tokens until the next trigger), the summary call's form and cost, and whether the
 * summary was prepared in the background (no call of its own).
 */
export type CompactionEconomy = Pick<
  EventData<"compaction.completed">,
  "reason" | "expectedSaving" | "summaryForm" | "summaryCost" | "prepared"
>;

export interface CompactionNotice {
  key: string;
  compactionId: string | null;
  agentId: string;
  /** `skipped`: there was nothing to compact (not a failure). */
  phase: "started" | "completed" | "failed" | "skipped";
  strategy?: "partial" | "full";
  trigger: "auto" | "manual" | "overflow";
  tokensBefore: number;
  tokensAfter?: number;
  saved?: StageSavings;
  restored?: RestoredItem[];
  historyFile?: string | null;
  cutoffMessageId?: string | null;
  /** The first seq kept in the context (from the event; older servers leave it out). */
  cutoffSeq?: number;
  /** Problems that did not block the compaction, e.g. the history file could not be written. */
  warnings?: string[];
  /** What the compaction cost and was expected to save, as its `compaction.completed` says (absent: older servers). */
  economy?: CompactionEconomy;
  reason?: string;
  breaker?: "closed" | "open" | "half_open";
  contextExhausted?: boolean;
  failures: number;
  at: number;
  eventSeq: number;
}

export interface Measurement {
  eventSeq: number;
  step: number;
  rawTokens: number;
  projectedTokens: number;
  maxInputTokens: number | null;
  triggerTokens: number;
  saved: StageSavings;
  needsCompaction: boolean;
  /** Cache stability of the request (cache-stable projections; absent from older servers). */
  cache?: EventData<"context.measured">["cache"];
  /** What the model call it led to cost: absent when no call followed (a compaction), or older servers. */
  cost?: EventData<"context.measured">["cost"];
  at: number;
}

export interface ApprovalRequest {
  callId: string;
  agentId: string | null;
  runId: string | null;
  name: string;
  arguments: string;
  requestedAt: number;
}

export interface ToolActivity {
  callId: string;
  agentId: string | null;
  name: string;
  arguments: string;
  status: "running" | ToolStatus;
  output?: string;
}

export interface RunView {
  id: string;
  agentId: string | null;
  kind: string | null;
  status: RunStatus;
  error?: { code: string; message: string };
  report?: string;
  /** Why it was cancelled, when it says. */
  reason?: string;
  /** When a new message asked it to stop at its next step boundary (multitask: interrupt). */
  interruptRequestedAt?: number;
  /** When it was admitted (first seen), started and ended; `at` is its latest change. */
  createdAt?: number;
  startedAt?: number;
  finishedAt?: number;
  at: number;
}

export interface StreamingText {
  messageId: string | null;
  text: string;
}

export interface BreakerView {
  state: "open" | "closed";
  failures: number;
  openUntil?: number;
}

/** Everything the dashboard knows about one thread, merged from REST reads and events. */
export interface ThreadState {
  threadId: string;
  title: string | null;
  /** Status from the latest thread.status event; null until one arrives. */
  status: ThreadStatus | null;
  /** Status from the last REST read of the thread (may be older than the thread list). */
  restStatus: ThreadStatus | null;
  /**
   * Head seq of the last snapshot read (null: none yet). Events at or below it are history: they fill the
   * transcript and chart but never override the statuses the snapshot gave (runs, agents, thread).
   */
  snapshotSeq: number | null;
  /** True once the events before the snapshot have all been read (chart and notices are complete). */
  historyLoaded: boolean;
  activity: Record<string, AgentActivityView>;
  /** Persisted event seqs already applied: the key that makes replay after a resume idempotent. */
  appliedSeqs: SeqSet;
  lastSeq: number;
  lastActivityAt: number | null;
  agents: Record<string, AgentNode>;
  /** Per agent, its messages read so far, in seq order. */
  messages: Record<string, MessageLog>;
  /**
   * Per agent, how far back its stored messages have been read: every message with a greater seq is
   * here (-1: the whole log). Absent until the first read ends; a long log is read from its end.
   */
  messagesReadFrom: Record<string, number>;
  compactions: Record<string, CompactionNotice>;
  measurements: Record<string, Measurement[]>;
  approvals: Record<string, ApprovalRequest>;
  tools: ToolCalls;
  runs: Record<string, RunView>;
  streaming: Record<string, StreamingText>;
  breakers: Record<string, BreakerView>;
  /** Decisions taken on tool calls, by `agentId:callId` (a denied call is not a failure). */
  decisions: Record<
    string,
    {
      decision: "approve" | "deny";
      reason?: string;
      eventSeq?: number;
      /** Set when an approval rule decided the call (no person was asked). */
      ruleId?: string;
    }
  >;
}

/** An empty thread state. */
export function emptyThreadState(threadId: string): ThreadState {
  return {
    threadId,
    title: null,
    status: null,
    restStatus: null,
    snapshotSeq: null,
    historyLoaded: false,
    activity: {},
    appliedSeqs: SeqSet.empty(),
    lastSeq: -1,
    lastActivityAt: null,
    agents: {},
    messages: {},
    messagesReadFrom: {},
    compactions: {},
    measurements: {},
    approvals: {},
    tools: ToolCalls.empty,
    runs: {},
    streaming: {},
    breakers: {},
    decisions: {},
  };
}
