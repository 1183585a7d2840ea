import { type HistoryMatch, matchHistory, splitAtCheckpoint } from "@longrun/openai-compat";
import type { NewMessage, StoredMessage } from "@longrun/protocol";

/**
 * Matches a client's resent history against the conversation's facts. A history the client rebuilt
 * around longrun's answer to its own compaction request is matched from that checkpoint on.
 */
export function matchResentHistory(
  facts: readonly StoredMessage[],
  items: readonly NewMessage[],
  options: { checkpoints: boolean },
): HistoryMatch<StoredMessage> {
  const split = options.checkpoints ? splitAtCheckpoint(items) : null;
  if (!split) return matchHistory(facts, items, facts);
  return matchHistory(
    facts.filter((fact) => fact.seq > split.afterSeq),
    withoutCondensedPairs(
      split.rest,
      facts.filter((fact) => fact.seq <= split.afterSeq),
    ),
    facts,
  );
}

/**
 * The rebuilt history after the checkpoint without the tool calls and results the log holds before
 * it. A client resends the call/result pair it was in the middle of when it compacted (Codex beside
 * the checkpoint; qwen-code after its summary, "Got it" and the files it restored): appending drops
 * such repeats, so matching must skip them too, or the client's next request differs from the log
 * at the pair and its conversation branches.
 */
function withoutCondensedPairs(rest: NewMessage[], condensed: readonly StoredMessage[]): NewMessage[] {
  const calls = new Set(condensed.flatMap((fact) => (fact.toolCalls ?? []).map((call) => call.id)));
  const answered = new Set(
    condensed.flatMap((fact) => (fact.role === "tool" && fact.toolCallId ? [fact.toolCallId] : [])),
  );
  return rest.filter((item) => {
    if (item.role === "tool") return !answered.has(item.toolCallId ?? "");
    const itemCalls = item.toolCalls ?? [];
    return !(
      item.role === "assistant" &&
      itemCalls.length > 0 &&
      itemCalls.every((call) => calls.has(call.id))
    );
  });
}
