import { contentText, type ToolCall } from "@longrun/protocol";
import { callOutcome } from "./ledger/call-outcome.ts";
import { estimateMessageTokens, type Tokenizer } from "./tokenizer.ts";
import type { ProjectionItem, StageResult } from "./types.ts";

/** Options of microcompact. */
export interface MicrocompactOptions {
  tokenizer: Tokenizer;
  /** createdAt of the newest fact (ms). */
  lastActivityAt: number | null;
  now: number;
  /** Idle gap that arms the stage (profile.idleGapMs, default 6 h). */
  idleGapMs: number;
  /** Most recent tool results kept intact (profile.microcompactKeep, default 5). */
  keep: number;
}

/** Why older results are cleared: the prompt cache has expired, or a rewrite resends them anyway. */
export type ClearedWhy = "idle" | "rewrite";

// Results this short cost less than the marker that would replace them.
const MIN_CLEARED_CHARS = 120;

/**
 * Marker left in place of a cleared result. A failed result keeps the line that says what went
 * wrong (the agent's last error is working state).
 */
export function clearedMarker(chars: number, why: ClearedWhy = "idle", failure = ""): string {
  const size = `${chars.toLocaleString("en-US")} chars`;
  const failed = failure === "" ? "" : `; it failed: ${failure}`;
  return why === "idle"
    ? `[result cleared after idle gap: ${size}${failed}]`
    : `[older result cleared: ${size}${failed}; re-run the call if needed]`;
}

/**
 * When the agent last did something, as the idle gap is met: the newest message that is not part of
 * the run of user messages at the end. A user who comes back after hours sends a new message first,
 * so measuring from the newest message would make every resume look busy; the gap that matters is
 * the one before that message. Null for a history of user messages only (nothing to clear).
 */
export function lastActivityOf(messages: readonly { role: string; createdAt: number }[]): number | null {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as { role: string; createdAt: number };
    if (message.role !== "user") return message.createdAt;
  }
  return null;
}

/** True when the gap between the last activity (lastActivityOf) and now reaches the idle threshold. */
export function isIdle(options: Pick<MicrocompactOptions, "lastActivityAt" | "now" | "idleGapMs">): boolean {
  return options.lastActivityAt !== null && options.now - options.lastActivityAt >= options.idleGapMs;
}

/**
 * Replaces older completed tool results with an explicit cleared marker; the `keep` most recent
 * results, locked items and results short enough to cost less than their marker stay intact.
 */
export function clearOlderResults(
  items: readonly ProjectionItem[],
  options: { tokenizer: Tokenizer; keep: number; why: ClearedWhy },
): StageResult {
  let resultsSeen = 0;
  const keepFrom: boolean[] = new Array(items.length).fill(false);
  for (let index = items.length - 1; index >= 0; index--) {
    if (items[index]?.message.role !== "tool") continue;
    keepFrom[index] = resultsSeen < options.keep;
    resultsSeen++;
  }
  let saved = 0;
  let cleared = 0;
  let clearedChars = 0;
  // The call each result answers: the latest one with its id before it (ids may repeat).
  const calls = new Map<string, ToolCall>();
  const out = items.map((item, index) => {
    for (const call of item.message.tool_calls ?? []) calls.set(call.id, call);
    if (item.message.role !== "tool" || keepFrom[index] || item.locked || item.mark !== "raw") return item;
    const text = contentText(item.message.content);
    if (text.length < MIN_CLEARED_CHARS) return item;
    // Read as the ledger reads it (in its call's scope), so the marker keeps what the ledger calls a failure.
    const callId = item.message.tool_call_id;
    const outcome = callOutcome(callId === undefined ? undefined : calls.get(callId), text, item.status);
    const failure = outcome.failed ? outcome.line || `exit ${outcome.exitCode ?? "unknown"}` : "";
    const message = { ...item.message, content: clearedMarker(text.length, options.why, failure) };
    const tokens = estimateMessageTokens(message, options.tokenizer);
    if (tokens >= item.tokens) return item;
    saved += item.tokens - tokens;
    cleared++;
    clearedChars += text.length;
    return { ...item, message, tokens };
  });
  const removed =
    cleared === 0 ? "" : `${cleared} tool results cleared (${clearedChars.toLocaleString("en-US")} chars)`;
  return { items: out, saved, removed };
}

/**
 * After an idle gap, replaces older completed tool results with an explicit cleared marker;
 * the `keep` most recent results and locked items stay intact. No-op when not idle.
 */
export function microcompact(items: readonly ProjectionItem[], options: MicrocompactOptions): StageResult {
  if (!isIdle(options)) return { items: [...items], saved: 0, removed: "" };
  return clearOlderResults(items, { tokenizer: options.tokenizer, keep: options.keep, why: "idle" });
}
