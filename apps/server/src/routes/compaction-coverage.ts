import type { CompactionCoverage, CompactionEvent } from "@longrun/protocol";
import type { ServerDeps } from "../server-deps.ts";

/**
 * For each compaction of an agent (oldest first), what it took out of the model's context: the seqs from
 * the previous cutoff up to its own, and the messages at or before that range its projection still sends
 * verbatim — the system prompt (assembled before any summary) and the task it pinned (the newest user
 * message before the cutoff, replayed after the summary). Reads the agent's first fact and its user
 * messages' ids, never the compacted prefix.
 */
export async function compactionCoverage(
  deps: Pick<ServerDeps, "store">,
  agentId: string,
  compactions: readonly CompactionEvent[],
): Promise<CompactionCoverage[]> {
  if (compactions.length === 0) return [];
  const [first, users] = await Promise.all([
    deps.store.messages.list(agentId, { afterSeq: -1, limit: 1 }),
    deps.store.messages.idsOfRole(agentId, "user"),
  ]);
  const system = first[0]?.role === "system" ? { seq: first[0].seq, messageId: first[0].id } : null;
  let previousCutoff = 0;
  return compactions.map((compaction) => {
    const cutoff = compaction.cutoffIndex;
    const kept: CompactionCoverage["kept"] = [];
    if (system && system.seq < cutoff) kept.push({ ...system, why: "system" });
    if (compaction.pinnedMessage) {
      const pinned = latestBefore(users, cutoff);
      if (pinned) kept.push({ seq: pinned.seq, messageId: pinned.id, why: "pinned" });
    }
    const coverage = { fromSeq: previousCutoff, toSeq: cutoff - 1, kept };
    previousCutoff = Math.max(previousCutoff, cutoff);
    return coverage;
  });
}

function latestBefore(
  messages: readonly { id: string; seq: number }[],
  seq: number,
): { id: string; seq: number } | undefined {
  let found: { id: string; seq: number } | undefined;
  for (const message of messages) {
    if (message.seq >= seq) break;
    found = message;
  }
  return found;
}
