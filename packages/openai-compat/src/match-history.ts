import type { NewMessage } from "@longrun/protocol";
import { fingerprint } from "./fingerprint.ts";

type Item = Pick<NewMessage, "role" | "content" | "toolCalls" | "toolCallId">;

/** How a client's resent history relates to what the log already holds. */
export type HistoryMatch<Fact extends Item = Item> =
  /** The log is a prefix of the history: append the rest (possibly nothing). */
  | { kind: "extend"; append: NewMessage[]; dropped: number }
  /** The history is the log minus its last answer: a retried request, answered from the log. */
  | { kind: "replay"; answer: Fact }
  /** The history differs from the log at item `at` (edited, dropped or reordered): never written over. */
  | { kind: "diverged"; at: number; reason: string };

/**
 * Matches a client's full history against the facts of its conversation. Only what is new is ever
 * appended; a retried request is recognized; any other difference is reported, never merged.
 * New items that repeat a tool call or result the log already has are dropped (a client that rebuilt
 * its history after a compaction resends the last call/result pair).
 */
export function matchHistory<Fact extends Item>(
  facts: readonly Fact[],
  items: readonly NewMessage[],
  known: readonly Item[] = facts,
): HistoryMatch<Fact> {
  const shared = Math.min(facts.length, items.length);
  for (let index = 0; index < shared; index++) {
    if (fingerprint(facts[index]!) !== fingerprint(items[index]!)) {
      return {
        kind: "diverged",
        at: index,
        reason: `item ${index} (${items[index]!.role}) differs from the conversation's log`,
      };
    }
  }
  if (items.length >= facts.length) {
    const { kept, dropped } = withoutRepeats(items.slice(facts.length), known);
    return { kind: "extend", append: kept, dropped };
  }
  const extra = facts.slice(items.length);
  const last = items.at(-1);
  if (extra.length === 1 && extra[0]!.role === "assistant" && last && last.role !== "assistant") {
    return { kind: "replay", answer: extra[0]! };
  }
  return {
    kind: "diverged",
    at: items.length,
    reason: `the history ends ${extra.length} item(s) before the conversation's log`,
  };
}

function withoutRepeats(
  candidates: NewMessage[],
  known: readonly Item[],
): { kept: NewMessage[]; dropped: number } {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const message of known) {
    for (const call of message.toolCalls ?? []) calls.add(call.id);
    if (message.role === "tool" && message.toolCallId) answered.add(message.toolCallId);
  }
  const kept: NewMessage[] = [];
  let dropped = 0;
  for (const message of candidates) {
    const repeatsCall =
      message.role === "assistant" &&
      (message.toolCalls?.length ?? 0) > 0 &&
      message.toolCalls!.every((call) => calls.has(call.id));
    const repeatsResult = message.role === "tool" && answered.has(message.toolCallId ?? "");
    if (repeatsCall || repeatsResult) {
      dropped += 1;
      continue;
    }
    for (const call of message.toolCalls ?? []) calls.add(call.id);
    if (message.role === "tool" && message.toolCallId) answered.add(message.toolCallId);
    kept.push(message);
  }
  return { kept, dropped };
}
