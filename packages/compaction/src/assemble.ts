import { type ChatMessage, type CompactionEvent, contentText, type StoredMessage } from "@longrun/protocol";
import type { Boundary } from "./boundary.ts";
import { resolveBoundary } from "./boundary.ts";
import { splitPrefixSystem } from "./fork-system.ts";
import { repairToolPairs } from "./repair.ts";
import {
  planRestoration,
  type RestorableState,
  type RestorationBudgets,
  type RestoredFile,
} from "./restoration.ts";
import { isSignedThinkingOnly, sanitizeMessage } from "./sanitize.ts";
import { toChatMessage } from "./to-chat.ts";
import { estimateMessageTokens, type Tokenizer } from "./tokenizer.ts";
import type { ProjectionItem } from "./types.ts";

/** Counts of what repair changed in the raw part. */
export interface RepairReport {
  cancelled: number;
  orphansDropped: number;
  duplicatesDropped: number;
}

/** Raw part of a projection: repaired items plus how the boundary resolved. */
export interface AssembledRaw {
  items: ProjectionItem[];
  boundary: Boundary;
  repair: RepairReport;
  /** Raw facts from the boundary (source of sourceId lookups). */
  facts: StoredMessage[];
}

/** Builds the raw items from the boundary on: wire shape, repaired, provider state per I5. */
export function assembleRaw(
  messages: readonly StoredMessage[],
  compaction: CompactionEvent | null,
  tokenizer: Tokenizer,
): AssembledRaw {
  const boundary = resolveBoundary(messages, compaction);
  const facts = messages.slice(boundary.startIndex);
  // Reasoning state is replayed only in the chain it was issued in: on the compaction now in force —
  // and the in-flight tool loop's answer keeps Anthropic's signed thinking, which the provider requires
  // to go on thinking in that loop and which no prefix binds.
  const inFlight = inFlightAnswerIndex(facts);
  const replay = facts.map(
    (fact, index) =>
      issuedInChain(fact, compaction) ||
      (index === inFlight &&
        isSignedThinkingOnly(fact.providerState?.reasoningDetails, fact.providerState?.reasoningContent)),
  );
  const wire = facts.map((fact, index) => toChatMessage(fact, { replayReasoning: replay[index] }));
  const repaired = repairToolPairs(wire);
  const items: ProjectionItem[] = repaired.messages.map((message, index) => {
    const source = repaired.sourceIndex[index];
    const fact = source === null || source === undefined ? undefined : facts[source];
    if (!fact)
      return {
        message,
        mark: "repaired",
        tokens: estimateMessageTokens(message, tokenizer),
        status: "cancelled",
      };
    // The stored count is the sanitized wire form: reuse it when that is what we send.
    const reuse =
      fact.tokenCount > 0 && message === wire[source as number] && message.reasoning_details === undefined;
    const item: ProjectionItem = {
      message: replay[source as number] ? message : sanitizeMessage(message),
      mark: "raw",
      tokens: reuse ? fact.tokenCount : estimateMessageTokens(message, tokenizer),
      sourceId: fact.id,
    };
    if (message.role === "tool") item.status = fact.toolStatus ?? "ok";
    return item;
  });
  lockVerbatim(items);
  return {
    items,
    boundary,
    facts,
    repair: {
      cancelled: repaired.cancelled,
      orphansDropped: repaired.orphansDropped,
      duplicatesDropped: repaired.duplicatesDropped,
    },
  };
}

/**
 * Whether a fact's provider-private state belongs to the chain the next request continues: it was issued
 * on the compaction now in force (none before the first). State issued before a compaction left its
 * chain at that compaction — the summary replaced the prefix it was bound to — and is never replayed
 * (I5); an answer given after the compaction was issued on the compacted prefix, which every request
 * until the next compaction repeats, so its reasoning goes back with it (Anthropic's in-flight tool loop
 * requires its thinking; Responses continues its reasoning). A fact stored before the field existed
 * counts as issued before any compaction. A stage that rewrites a message later (project.ts) strips
 * every answer after it again.
 */
export function issuedInChain(fact: StoredMessage, compaction: CompactionEvent | null): boolean {
  return (fact.providerState?.issuedOnCompactionId ?? null) === (compaction?.id ?? null);
}

/** The answer whose tool calls the newest facts answer (only tool results after it), or -1. */
function inFlightAnswerIndex(facts: readonly StoredMessage[]): number {
  let index = facts.length - 1;
  while (index >= 0 && facts[index]?.role === "tool") index--;
  const answer = facts[index];
  return index < facts.length - 1 && answer?.role === "assistant" && (answer.toolCalls?.length ?? 0) > 0
    ? index
    : -1;
}

/** How many of the most recent tool results every stage keeps verbatim, with their calls. */
export const KEEP_RECENT_RESULTS = 3;

/**
 * Marks the latest user message, the active tool loop (I3) and the calls behind the last
 * KEEP_RECENT_RESULTS tool results so no stage rewrites them.
 */
export function lockVerbatim(items: ProjectionItem[]): void {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as ProjectionItem;
    if (item.message.role === "user") {
      item.locked = true;
      break;
    }
  }
  let results = 0;
  for (let index = items.length - 1; index >= 0 && results < KEEP_RECENT_RESULTS; index--) {
    const calls = items[index]?.message.tool_calls;
    if (items[index]?.message.role !== "assistant" || !calls || calls.length === 0) continue;
    for (let offset = 0; offset <= calls.length; offset++) {
      const item = items[index + offset];
      if (!item) continue;
      item.locked = true;
      if (offset > 0 && item.message.role === "tool") results++;
    }
  }
}

/** Input of assembleHeader. */
export interface HeaderInput {
  systemPrompt: string | null;
  prefix?: readonly ChatMessage[];
  compaction: CompactionEvent | null;
  state: RestorableState | null;
  restoredFiles?: readonly RestoredFile[];
  restorationBudgets?: Partial<RestorationBudgets>;
  tokenizer: Tokenizer;
}

/**
 * System prompt, fork prefix, pinned message, summary and restored files/plan, in that order. The
 * pinned message (the latest user message, usually the task) comes before the summary: it is the
 * same message in the same place as in the request before the compaction and in every compaction
 * after, so a prefix cache keeps serving it instead of writing it again with each summary.
 */
export function assembleHeader(input: HeaderInput): ProjectionItem[] {
  const { tokenizer, compaction } = input;
  const item = (message: ChatMessage, mark: ProjectionItem["mark"]): ProjectionItem => ({
    message,
    mark,
    tokens: estimateMessageTokens(message, tokenizer),
  });
  const header: ProjectionItem[] = [];
  if (input.systemPrompt !== null)
    header.push(item({ role: "system", content: input.systemPrompt }, "system"));
  // A fork prefix was produced in the parent's request chain, never this one: always sanitized.
  // Once a compaction folded the prefix into its summary, only its system prompt is still sent.
  if (compaction?.includesPrefix !== true) {
    for (const message of input.prefix ?? []) header.push(item(sanitizeMessage(message), "prefix"));
  } else {
    for (const message of splitPrefixSystem(input.prefix ?? []).system)
      header.push(item(sanitizeMessage(message), "system"));
  }
  if (compaction === null) return header;
  if (compaction.pinnedMessage) header.push(item(sanitizeMessage(compaction.pinnedMessage), "pinned"));
  // A summary shrunk to nothing (the verbatim part alone fills the window) is left out.
  if (contentText(compaction.summaryMessage.content) !== "")
    header.push(item(sanitizeMessage(compaction.summaryMessage), "summary"));
  const restoration = planRestoration({
    files: input.restoredFiles ?? [],
    // The ledger in the summary carries the plan and TODOs; restoring them again would pay twice.
    state: compaction.ledger ? null : input.state,
    tokenizer,
    ...(input.restorationBudgets ? { budgets: input.restorationBudgets } : {}),
  });
  for (const message of restoration.messages) header.push(item(message, "restored"));
  return header;
}
