import { z } from "zod";
import { PendingApproval, TodoItem } from "./agent.ts";
import { ChatMessage } from "./message.ts";

export const CompactionStrategy = z.enum(["partial", "full"]);
export type CompactionStrategy = z.infer<typeof CompactionStrategy>;

export const CompactionTrigger = z.enum(["auto", "manual", "overflow"]);
export type CompactionTrigger = z.infer<typeof CompactionTrigger>;

/** Tokens each deterministic stage removed from a projection. */
export const StageSavings = z.object({
  collapse: z.number().int().nonnegative(),
  truncate: z.number().int().nonnegative(),
  microcompact: z.number().int().nonnegative(),
});
export type StageSavings = z.infer<typeof StageSavings>;

/**
 * What one model call cost: input tokens read from the provider's prefix cache, the rest (plain input
 * OpenAI-style, cache writes Anthropic-style), output tokens, and the billed-equivalent sum in units of
 * one uncached input token under each price profile (cache reads 0.1; writes 1 / 1.25; output ×4).
 * `source`: "provider" when the answer's usage reported its cached tokens, else "estimate" (the
 * prefix this request shares byte for byte with the agent's previous one, by the runtime's counts).
 */
export const CallCost = z.object({
  cacheRead: z.number().int().nonnegative(),
  uncached: z.number().int().nonnegative(),
  output: z.number().int().nonnegative(),
  billed: z.object({ openai: z.number().nonnegative(), anthropic: z.number().nonnegative() }),
  source: z.enum(["provider", "estimate"]),
});
export type CallCost = z.infer<typeof CallCost>;

export const RestoredItem = z.object({
  kind: z.enum(["file", "plan", "todos"]),
  path: z.string().optional(),
  tokens: z.number().int().nonnegative(),
  /** The text inserted into the projection, kept so every rebuild of the projection is identical. */
  content: z.string().optional(),
  /** `content` is already cut to its budget (events since the ledger); older events hold whole files. */
  fitted: z.boolean().optional(),
  /**
   * Which version of the file was restored: `current` (as read at compaction time) or `as of message
   * #N …` (the snapshot of the agent's last write, the file having changed since). Absent in older events.
   */
  version: z.string().optional(),
});
export type RestoredItem = z.infer<typeof RestoredItem>;

/** What a tool call did to a file, as the ledger records it. */
export const LedgerFileAction = z.enum([
  "created",
  "written",
  "appended",
  "edited",
  "deleted",
  "moved",
  "reverted",
]);
export type LedgerFileAction = z.infer<typeof LedgerFileAction>;

/** How a call went, as far as its result shows: `unknown` when it shows neither success nor failure. */
export const LedgerOutcome = z.enum(["ok", "failed", "unknown"]);
export type LedgerOutcome = z.infer<typeof LedgerOutcome>;

/**
 * The agent's working state derived by code from the compacted facts and the previous ledger (never
 * by the summarizer): what it changed, read, ran and was told. `step` is the seq of the fact that
 * did it (null for a fork's inherited prefix, which has no seq in this agent's log).
 */
export const Ledger = z.object({
  version: z.literal(1),
  /** Seq of the last fact folded in (null: none with a seq). */
  throughStep: z.number().int().nullable(),
  /** Files created, written, edited, deleted: one entry per path, its last action, oldest first. */
  changedFiles: z.array(
    z.object({ path: z.string(), action: LedgerFileAction, step: z.number().int().nullable() }),
  ),
  /** Files read, one entry per path at its latest read, oldest first. */
  readFiles: z.array(
    z.object({ path: z.string(), lines: z.string().optional(), step: z.number().int().nullable() }),
  ),
  /**
   * Commands that were not read-only, oldest first, with the exit code their result carries (null:
   * it carries none) and the outcome it shows (`unknown` when it shows none; absent in ledgers
   * recorded before outcomes were).
   */
  commands: z.array(
    z.object({
      command: z.string(),
      exitCode: z.number().int().nullable(),
      outcome: LedgerOutcome.optional(),
      step: z.number().int().nullable(),
    }),
  ),
  /** Failing tool results, the last error last; `resolvedAt` is the step of a later success of the same call. */
  errors: z.array(
    z.object({
      step: z.number().int().nullable(),
      call: z.string(),
      /** The line that says what went wrong (the exception line of a traceback, else the first line). */
      line: z.string(),
      exitCode: z.number().int().nullable(),
      /** What a later call must match to resolve it (tool and target). */
      key: z.string(),
      resolvedAt: z.number().int().nullable(),
    }),
  ),
  plan: z.string().nullable(),
  todos: z.array(TodoItem),
  pendingApprovals: z.array(PendingApproval.pick({ callId: true, toolName: true, arguments: true })),
  /** Sub-agents spawned and the first line of each report. */
  subAgents: z.array(
    z.object({ name: z.string(), step: z.number().int().nullable(), report: z.string().nullable() }),
  ),
  /** What the user said after the task (corrections, decisions), most recent last. */
  userNotes: z.array(z.object({ step: z.number().int().nullable(), text: z.string() })),
  /**
   * Identifiers (files, symbols) the compacted facts hold: the file a name was first seen in, how
   * many of the agent's own messages used it, the step of its latest sighting (absent on old ledgers).
   */
  names: z
    .array(
      z.object({
        name: z.string(),
        file: z.string().nullable(),
        uses: z.number().int().nonnegative(),
        step: z.number().int().nullable(),
      }),
    )
    .optional(),
});
export type Ledger = z.infer<typeof Ledger>;

/** One thing a compaction made smaller so the request fits, in the order they are tried. */
export const CompactionShrink = z.object({
  what: z.enum(["restored_files", "summary", "ledger"]),
  /** Tokens before and after the shrink. */
  tokensBefore: z.number().int().nonnegative(),
  tokensAfter: z.number().int().nonnegative(),
  detail: z.string(),
});
export type CompactionShrink = z.infer<typeof CompactionShrink>;

/** A persisted compaction event: the summary and the boundary it joins to. */
export const CompactionEvent = z.object({
  id: z.string(),
  agentId: z.string(),
  /** First retained raw message: the stable anchor. */
  cutoffMessageId: z.string().nullable(),
  /** Positional fallback (seq of the first retained message) when the id is gone. */
  cutoffIndex: z.number().int().nonnegative(),
  summaryMessage: ChatMessage,
  /**
   * The latest user message when it fell inside the summarized prefix: replayed verbatim
   * after the summary so the task statement is never regenerated (optional for old events).
   */
  pinnedMessage: ChatMessage.nullable().optional(),
  /** A forked sub-agent's inherited prefix is folded into this summary and no longer sent. */
  includesPrefix: z.boolean().optional(),
  historyFile: z.string().nullable(),
  strategy: CompactionStrategy,
  trigger: CompactionTrigger,
  tokensBefore: z.number().int().nonnegative(),
  tokensAfter: z.number().int().nonnegative(),
  restored: z.array(RestoredItem),
  /** Working state derived by code, rendered in summaryMessage beside the summary (absent on old events). */
  ledger: Ledger.nullable().optional(),
  /** What was shrunk so the compacted context fits (absent or empty: nothing). */
  shrunk: z.array(CompactionShrink).nullable().optional(),
  createdAt: z.number().int(),
});
export type CompactionEvent = z.infer<typeof CompactionEvent>;
