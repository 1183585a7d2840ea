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
    split.rest,
    facts,
  );
}
