import { z } from "zod";
import { AgentInherit, AgentStatus, ThreadStatus } from "./agent.ts";
import {
  CallCost,
  CompactionShrink,
  CompactionStrategy,
  CompactionTrigger,
  Ledger,
  RestoredItem,
  StageSavings,
} from "./compaction.ts";
import { defineEvent } from "./define-event.ts";
import { MessageContent, ToolCall, ToolStatus, Usage } from "./message.ts";

/**
 * Why an automatic LLM compaction ran (absent: manual, overflow, or an older server): "must", the
 * deterministic stages left the request over the trigger; "cheaper", the cost model found a summary
 * cheaper over the coming calls than the deterministic path. `expectedSaving`: the model's estimate, in
 * billed-equivalent input tokens (cache reads at 0.1, writes at 1, output at 4) over the calls until the
 * next trigger (negative: a loss the "must" rule accepts).
 */
const CompactionEconomyFields = {
  reason: z.enum(["must", "cheaper"]).optional(),
  expectedSaving: z.number().int().optional(),
};

const ErrorInfo = z.object({ code: z.string(), message: z.string() });
const BreakerState = z.enum(["closed", "open", "half_open"]);

export const ThreadCreated = defineEvent(
  "thread.created",
  z.object({ title: z.string(), workspaceDir: z.string(), model: z.string() }),
);
export const ThreadStatusChanged = defineEvent("thread.status", z.object({ status: ThreadStatus }));
export const RunQueued = defineEvent(
  "run.queued",
  z.object({ kind: z.string(), position: z.number().int().nonnegative() }),
);
export const RunStarted = defineEvent("run.started", z.object({ kind: z.string() }));
export const RunCompleted = defineEvent("run.completed", z.object({ report: z.string().optional() }));
export const RunFailed = defineEvent("run.failed", z.object({ error: ErrorInfo }));
export const RunCancelled = defineEvent("run.cancelled", z.object({ reason: z.string().optional() }));
/**
 * A new message asked the run to stop at its next step boundary (multitask: interrupt): the step in
 * flight finishes, then `run.cancelled` follows.
 */
export const RunInterruptRequested = defineEvent("run.interrupt_requested", z.object({ reason: z.string() }));
/** The reconciler found nothing moving the run and could not restart it; the reason says why. */
export const RunStuck = defineEvent("run.stuck", z.object({ reason: z.string() }));
/** A stuck run moves again (a worker took its job). */
export const RunResumed = defineEvent("run.resumed", z.object({ reason: z.string().optional() }));
export const AgentSpawned = defineEvent(
  "agent.spawned",
  z.object({
    name: z.string(),
    parentAgentId: z.string().nullable(),
    inherit: AgentInherit,
    brief: z.string().optional(),
    /** The parent's `spawn_agents` call that created it (absent in logs written before it was sent). */
    spawnCallId: z.string().nullable().optional(),
  }),
);
export const AgentStatusChanged = defineEvent(
  "agent.status",
  z.object({
    status: AgentStatus,
    reason: z.string().optional(),
    /** `waiting`: when the agent is due to try again (epoch ms; absent from older servers). */
    until: z.number().int().optional(),
  }),
);
export const MessageDelta = defineEvent(
  "message.delta",
  z.object({ messageId: z.string().optional(), text: z.string() }),
);
export const MessageCompleted = defineEvent(
  "message.completed",
  z.object({
    messageId: z.string(),
    seq: z.number().int().nonnegative(),
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: MessageContent,
    toolCalls: z.array(ToolCall).optional(),
    toolCallId: z.string().optional(),
    toolStatus: ToolStatus.optional(),
    usage: Usage.optional(),
  }),
);
export const ToolStarted = defineEvent(
  "tool.started",
  z.object({ callId: z.string(), name: z.string(), arguments: z.string() }),
);
export const ToolCompleted = defineEvent(
  "tool.completed",
  z.object({ callId: z.string(), name: z.string(), status: ToolStatus, output: z.string() }),
);
export const ApprovalRequested = defineEvent(
  "approval.requested",
  z.object({ callId: z.string(), name: z.string(), arguments: z.string() }),
);
export const ApprovalResolved = defineEvent(
  "approval.resolved",
  z.object({
    callId: z.string(),
    decision: z.enum(["approve", "deny"]),
    reason: z.string().optional(),
    /** Set when an approval rule decided the call (no person was asked): the rule's id. */
    ruleId: z.string().optional(),
    /** With `ruleId`: the call's tool and arguments (no approval.requested came before). */
    name: z.string().optional(),
    arguments: z.string().optional(),
  }),
);
export const ContextMeasured = defineEvent(
  "context.measured",
  z.object({
    step: z.number().int().nonnegative(),
    rawTokens: z.number().int().nonnegative(),
    projectedTokens: z.number().int().nonnegative(),
    maxInputTokens: z.number().int().positive().nullable(),
    triggerTokens: z.number().int().positive(),
    saved: StageSavings,
    needsCompaction: z.boolean(),
    /**
     * A compaction was due and put off to a later step: the background summary it would apply is still
     * being made and the request fits the limit (absent otherwise, and from older servers).
     */
    compactionDeferred: z.literal("summary-in-progress").optional(),
    /**
     * Cache stability of the request (absent from older servers): `rewrite` null when it extends the
     * previous request byte for byte, else why messages already sent were rewritten (a batch that
     * saved its threshold, needed to fit, LLM compaction due, the history changed); `dueTokens` the
     * reductions due at this call (applied by the rewrite, or deferred); on a rewrite, `savedTokens`
     * what it saved and `resentTokens` the tokens after its first change, which a prefix cache
     * cannot serve (both absent from older servers).
     */
    cache: z
      .object({
        rewrite: z.enum(["batch", "fit", "compaction", "history"]).nullable(),
        dueTokens: z.number().int().nonnegative(),
        savedTokens: z.number().int().nonnegative().optional(),
        resentTokens: z.number().int().nonnegative().optional(),
      })
      .optional(),
    /** What the model call this request led to cost (absent when no call followed, or older servers). */
    cost: CallCost.optional(),
  }),
);
export const CompactionStarted = defineEvent(
  "compaction.started",
  z.object({
    compactionKey: z.string(),
    trigger: CompactionTrigger,
    tokensBefore: z.number().int(),
    ...CompactionEconomyFields,
  }),
);
export const CompactionCompleted = defineEvent(
  "compaction.completed",
  z.object({
    compactionKey: z.string(),
    compactionId: z.string(),
    strategy: CompactionStrategy,
    trigger: CompactionTrigger,
    tokensBefore: z.number().int(),
    tokensAfter: z.number().int(),
    saved: StageSavings,
    cutoffMessageId: z.string().nullable(),
    /**
     * The first seq still in the context after it (every message of the agent below it was summarized),
     * so a client that has not read those messages still knows the range (absent from older servers).
     */
    cutoffSeq: z.number().int().nonnegative().optional(),
    historyFile: z.string().nullable(),
    restored: z.array(RestoredItem),
    /** The working-state ledger carried by the summary message (absent from older servers). */
    ledger: Ledger.optional(),
    /** What was shrunk so the compacted context fits, in order (empty: nothing). */
    shrunk: z.array(CompactionShrink).optional(),
    /** Problems that did not block the compaction (e.g. the history file could not be written). */
    warnings: z.array(z.string()).optional(),
    ...CompactionEconomyFields,
    /**
     * The summary call's form: the agent's own request continued (a prefix cache serves it) or a
     * standalone request (it would not fit the window, or another model summarizes).
     */
    summaryForm: z.enum(["continuation", "standalone"]).optional(),
    /** What the summary call cost (absent when no call was made, or older servers). */
    summaryCost: CallCost.optional(),
    /**
     * The summary was prepared in the background before the trigger (`compaction.prepared`), so this
     * compaction made no summary call of its own (absent: it did, or an older server).
     */
    prepared: z.boolean().optional(),
  }),
);
/**
 * A summary of the older prefix made in the background, off the agent's steps, once the request passed
 * its early line (`backgroundRatio` of the trigger): `ready` to be applied by the next compaction if the
 * history still begins with what it covers, else discarded; `failed` (counted by the breaker).
 */
export const CompactionPrepared = defineEvent(
  "compaction.prepared",
  z.object({
    compactionKey: z.string(),
    outcome: z.enum(["ready", "failed"]),
    /** First message the summary does not cover. */
    cutoffMessageId: z.string().nullable(),
    /** Pressure of the request it was prepared from. */
    tokensAt: z.number().int(),
    reason: z.string().optional(),
    summaryCost: CallCost.optional(),
  }),
);
export const CompactionFailed = defineEvent(
  "compaction.failed",
  z.object({
    compactionKey: z.string(),
    trigger: CompactionTrigger,
    reason: z.string(),
    breaker: BreakerState,
    contextExhausted: z.boolean(),
    /** What was shrunk before the context was declared exhausted. */
    shrunk: z.array(CompactionShrink).optional(),
  }),
);
/**
 * A compaction that had nothing to do (the history already fits the kept window): not a failure, the
 * breaker is not involved. A manual `/compact` ends its turn with it.
 */
export const CompactionSkipped = defineEvent(
  "compaction.skipped",
  z.object({ compactionKey: z.string(), trigger: CompactionTrigger, reason: z.string() }),
);
export const BreakerOpened = defineEvent(
  "breaker.opened",
  z.object({ failures: z.number().int(), cooldownMs: z.number().int(), openUntil: z.number().int() }),
);
export const BreakerClosed = defineEvent("breaker.closed", z.object({ failures: z.number().int() }));
/**
 * The provider refused the reasoning state a request replayed (invalid_encrypted_content): the step
 * dropped it from `messages` messages and sent the request once more.
 */
export const ReasoningDropped = defineEvent(
  "reasoning.dropped",
  z.object({ reason: z.string(), messages: z.number().int().nonnegative() }),
);

/** Every event definition, the single source of the union below. */
export const eventDefinitions = [
  ThreadCreated,
  ThreadStatusChanged,
  RunQueued,
  RunStarted,
  RunCompleted,
  RunFailed,
  RunCancelled,
  RunInterruptRequested,
  RunStuck,
  RunResumed,
  AgentSpawned,
  AgentStatusChanged,
  MessageDelta,
  MessageCompleted,
  ToolStarted,
  ToolCompleted,
  ApprovalRequested,
  ApprovalResolved,
  ContextMeasured,
  CompactionStarted,
  CompactionCompleted,
  CompactionFailed,
  CompactionSkipped,
  CompactionPrepared,
  BreakerOpened,
  BreakerClosed,
  ReasoningDropped,
] as const;

type Definitions = typeof eventDefinitions;
type EventSchema = Definitions[number]["schema"];

export const LongrunEvent = z.discriminatedUnion(
  "type",
  eventDefinitions.map((definition) => definition.schema) as unknown as [EventSchema, ...EventSchema[]],
);
export type LongrunEvent = z.infer<typeof LongrunEvent>;
export type EventType = LongrunEvent["type"];
export type EventOf<Type extends EventType> = Extract<LongrunEvent, { type: Type }>;
export type EventData<Type extends EventType> = EventOf<Type>["data"];

export const eventTypes = eventDefinitions.map((definition) => definition.type) as EventType[];

/** An event before the log assigns its seq. */
export type NewEvent = { [Type in EventType]: Omit<EventOf<Type>, "seq" | "at"> }[EventType];

/** True when `type` matches a filter entry: exact, or `prefix.*`. */
export function eventTypeMatches(type: string, filter: readonly string[] | undefined): boolean {
  if (!filter || filter.length === 0) return true;
  return filter.some((entry) =>
    entry.endsWith(".*") ? type.startsWith(entry.slice(0, -1)) : entry === type || entry === "*",
  );
}
