import type { ChatMessage, CompactionStrategy, ModelProfile, StoredMessage } from "@longrun/protocol";
import { KEEP_RECENT_RESULTS } from "./assemble.ts";
import { sanitizeMessage } from "./sanitize.ts";
import { thresholds } from "./thresholds.ts";
import { toChatMessage } from "./to-chat.ts";
import { estimateStoredTokens, type Tokenizer } from "./tokenizer.ts";

/** Options of selectCutoff. */
export interface CutoffOptions {
  strategy?: CompactionStrategy;
  /** Used for facts whose tokenCount is 0 (not set on append). */
  tokenizer: Tokenizer;
  /** Pin of the compaction in force, carried forward when no user message is in `messages`. */
  previousPinned?: ChatMessage | null;
  /**
   * The most recent context a partial compaction may keep (the share of the post-compaction target
   * the fixed overhead leaves): a longer kept tail moves the cut forward, never past the last safe
   * cut, so the active tool loop always stays.
   */
  maxKeptTokens?: number;
  /**
   * Cut exactly before this message (a summary prepared in the background covers what lies before
   * it). Ignored unless the message is in `messages` at a safe cut; see `Cutoff.forced`.
   */
  at?: string;
}

/** Where to cut and what each side holds. */
export interface Cutoff {
  strategy: CompactionStrategy;
  /** First retained message id (null: nothing retained, full compaction). */
  cutoffMessageId: string | null;
  /** Seq of the first retained message (last seq + 1 when nothing is retained). */
  cutoffIndex: number;
  /** Index into `messages` of the cut. */
  index: number;
  toSummarize: StoredMessage[];
  kept: StoredMessage[];
  /** Latest user message when it falls in the summarized part: replayed verbatim after the summary. */
  pinned: ChatMessage | null;
  /** The cut is the one `at` asked for. */
  forced: boolean;
}

/** Index of the assistant message that made the call behind the `count`-th most recent tool result. */
function recentResultsStart(messages: readonly StoredMessage[], count: number): number {
  let found = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as StoredMessage;
    if (message.role !== "tool" || message.toolCallId === undefined) continue;
    found++;
    if (found < count) continue;
    for (let at = index - 1; at >= 0; at--) {
      if (messages[at]?.toolCalls?.some((call) => call.id === message.toolCallId)) return at;
    }
    return -1;
  }
  return found > 0 ? recentResultsStart(messages, found) : -1;
}

/** Positions where a cut splits no call from its result and does not open on a tool result. */
function safeCuts(messages: readonly StoredMessage[]): boolean[] {
  const callAt = new Map<string, number>();
  const blockedFrom = new Array<number>(messages.length + 2).fill(0);
  messages.forEach((message, index) => {
    for (const call of message.toolCalls ?? []) if (!callAt.has(call.id)) callAt.set(call.id, index);
    if (message.role === "tool" && message.toolCallId !== undefined) {
      const call = callAt.get(message.toolCallId);
      // Cutting anywhere in (call, result] would separate the pair.
      if (call !== undefined && call < index) {
        blockedFrom[call + 1] = (blockedFrom[call + 1] ?? 0) + 1;
        blockedFrom[index + 1] = (blockedFrom[index + 1] ?? 0) - 1;
      }
    }
  });
  const safe: boolean[] = [];
  let open = 0;
  for (let index = 0; index <= messages.length; index++) {
    open += blockedFrom[index] ?? 0;
    safe.push(open === 0 && messages[index]?.role !== "tool");
  }
  return safe;
}

/**
 * Picks the cut for a compaction: partial keeps about keepTokens (or keepMessages) of recent
 * messages verbatim, full keeps none; the cut moves so no call is separated from its results,
 * and the latest user message is pinned when it falls before the cut.
 */
export function selectCutoff(
  messages: readonly StoredMessage[],
  profile: Partial<ModelProfile>,
  options: CutoffOptions,
): Cutoff {
  const strategy = options.strategy ?? "partial";
  const limits = thresholds(profile);
  const tokensOf = (message: StoredMessage) =>
    message.tokenCount > 0 ? message.tokenCount : estimateStoredTokens(message, options.tokenizer);
  let target = messages.length;
  if (strategy === "partial") {
    if (limits.keepTokens === null) target = Math.max(0, messages.length - limits.keepMessages);
    else {
      let kept = 0;
      while (target > 0) {
        const tokens = tokensOf(messages[target - 1] as StoredMessage);
        if (kept + tokens > limits.keepTokens) break;
        kept += tokens;
        target--;
      }
    }
    target = Math.min(target, Math.max(0, messages.length - 1));
    // Keep the calls behind the last few tool results verbatim too, unless that tail would take
    // more than a quarter of the limit: then the compaction would barely shrink the context.
    const keepFrom = recentResultsStart(messages, KEEP_RECENT_RESULTS);
    if (keepFrom >= 0 && keepFrom < target) {
      let tail = 0;
      for (let at = keepFrom; at < messages.length; at++) tail += tokensOf(messages[at] as StoredMessage);
      if (tail <= Math.floor(limits.limitTokens / 4)) target = keepFrom;
    }
  }
  const safe = safeCuts(messages);
  const forcedAt = options.at === undefined ? -1 : messages.findIndex((message) => message.id === options.at);
  if (forcedAt > 0 && safe[forcedAt]) return cutAt(messages, forcedAt, strategy, options, true);
  const forwardCut = () => {
    let at = target;
    while (at < messages.length && !safe[at]) at++;
    return at;
  };
  let index = target;
  while (index > 0 && !safe[index]) index--;
  if (index === 0) index = forwardCut();
  else if (strategy === "partial" && index < target) {
    // Moving back keeps the whole call group the target fell into. When that group is huge (a long
    // read result), keeping it would undo the compaction (or exhaust the context): cut forward past
    // it instead, if a safe cut remains before the end (the active tool loop is then still kept).
    let keptTokens = 0;
    for (let at = index; at < messages.length; at++) keptTokens += tokensOf(messages[at] as StoredMessage);
    if (keptTokens > Math.floor(limits.limitTokens / 2)) {
      const forward = forwardCut();
      if (forward < messages.length) index = forward;
    }
  }
  if (strategy === "partial" && options.maxKeptTokens !== undefined) {
    let kept = 0;
    for (let at = index; at < messages.length; at++) kept += tokensOf(messages[at] as StoredMessage);
    // Move to the next safe cut while the kept tail is over its share; never to the very end.
    while (kept > options.maxKeptTokens) {
      let next = index + 1;
      let tail = kept - tokensOf(messages[index] as StoredMessage);
      while (next < messages.length && !safe[next]) tail -= tokensOf(messages[next++] as StoredMessage);
      if (next >= messages.length) break;
      index = next;
      kept = tail;
    }
  }
  return cutAt(messages, index, strategy, options, false);
}

function cutAt(
  messages: readonly StoredMessage[],
  index: number,
  strategy: CompactionStrategy,
  options: CutoffOptions,
  forced: boolean,
): Cutoff {
  const toSummarize = messages.slice(0, index);
  const kept = messages.slice(index);
  let latestUser = -1;
  for (let at = messages.length - 1; at >= 0; at--) {
    if (messages[at]?.role === "user") {
      latestUser = at;
      break;
    }
  }
  let pinned: ChatMessage | null = null;
  if (latestUser < 0) pinned = options.previousPinned ?? null;
  else if (latestUser < index) pinned = sanitizeMessage(toChatMessage(messages[latestUser] as StoredMessage));
  const first = kept[0];
  const last = messages[messages.length - 1];
  return {
    strategy,
    cutoffMessageId: first?.id ?? null,
    cutoffIndex: first ? first.seq : last ? last.seq + 1 : 0,
    index,
    toSummarize,
    kept,
    pinned,
    forced,
  };
}
