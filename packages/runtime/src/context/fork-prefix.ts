import { repairToolPairs, sanitizeMessages, toChatMessages } from "@longrun/compaction";
import { type Agent, type ChatMessage, type CompactionEvent, LongrunError } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { restoredMessages } from "./restored-messages.ts";

/**
 * A forked sub-agent's prefix: its parent's projection as it stood at the spawn, rebuilt from ids
 * (the compaction event then in force plus the parent's facts up to `forkMessageId`). Deterministic:
 * no clock, no budget-dependent reduction, so it is byte-identical however the parent's log grows.
 */
export async function buildForkPrefix(deps: RuntimeDeps, agent: Agent): Promise<ChatMessage[]> {
  if (!agent.parentAgentId || !agent.forkMessageId) return [];
  const { store } = deps;
  const parent = await store.agents.get(agent.parentAgentId);
  if (!parent) throw forkAnchorMissing(agent, `parent agent ${agent.parentAgentId}`);
  const forkMessage = await store.messages.get(agent.forkMessageId);
  // An empty prefix would be a silent, different context: a missing anchor is an error, never silence.
  if (!forkMessage || forkMessage.agentId !== parent.id) {
    throw forkAnchorMissing(agent, `fork message ${agent.forkMessageId}`);
  }
  const compaction: CompactionEvent | null = agent.forkCompactionId
    ? await store.compactions.get(agent.forkCompactionId)
    : null;
  if (agent.forkCompactionId && !compaction) {
    throw forkAnchorMissing(agent, `fork compaction ${agent.forkCompactionId}`);
  }
  const [first] = await store.messages.list(parent.id, { afterSeq: -1, limit: 1 });
  const facts = compaction
    ? await store.messages.fromBoundary(parent.id, {
        cutoffMessageId: compaction.cutoffMessageId,
        cutoffIndex: compaction.cutoffIndex,
      })
    : await store.messages.list(parent.id, { afterSeq: -1 });
  const upToFork = facts.filter((message) => message.seq <= forkMessage.seq && message.id !== first?.id);
  const grandPrefix = parent.inherit === "fork" ? await buildForkPrefix(deps, parent) : [];
  const system: ChatMessage[] =
    first?.role === "system" && grandPrefix.length === 0 ? [{ role: "system", content: first.content }] : [];
  const summary: ChatMessage[] = compaction
    ? [
        compaction.summaryMessage,
        ...restoredMessages(compaction, deps.tokenizer),
        ...(compaction.pinnedMessage ? [compaction.pinnedMessage] : []),
      ]
    : [];
  return sanitizeMessages(
    repairToolPairs([...grandPrefix, ...system, ...summary, ...toChatMessages(upToFork)]).messages,
  );
}

function forkAnchorMissing(agent: Agent, what: string): LongrunError {
  return new LongrunError(
    "conflict",
    `forked sub-agent ${agent.id} cannot rebuild its inherited prefix: ${what} is missing from the parent's log`,
    { forkAnchorMissing: true, agentId: agent.id },
  );
}

/** True for the error buildForkPrefix throws when the fork's anchor is gone. */
export function isForkAnchorMissing(error: unknown): boolean {
  return (
    LongrunError.isInstance(error) &&
    (error.details as { forkAnchorMissing?: unknown } | undefined)?.forkAnchorMissing === true
  );
}
