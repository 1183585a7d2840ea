import { z } from "zod";
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

export const RestoredItem = z.object({
  kind: z.enum(["file", "plan", "todos"]),
  path: z.string().optional(),
  tokens: z.number().int().nonnegative(),
  /** The text inserted into the projection, kept so every rebuild of the projection is identical. */
  content: z.string().optional(),
});
export type RestoredItem = z.infer<typeof RestoredItem>;

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
  createdAt: z.number().int(),
});
export type CompactionEvent = z.infer<typeof CompactionEvent>;
