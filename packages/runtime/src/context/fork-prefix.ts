import { assembleHeader, repairToolPairs, sanitizeMessages, toChatMessages } from "@longrun/compaction";
import { type Agent, type ChatMessage, type CompactionEvent, LongrunError } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { restorationBudgetsFor, restoredFilesOf } from "./projection.ts";

/**
 * A forked sub-agent's prefix: its parent's projection as it stood at the spawn, rebuilt from ids
 * (the compaction event then in force plus the parent's facts up to `forkMessageId`). Deterministic:
 * no clock, no budget-dependent reduction, so it is byte-identical however the parent's log grows.
 * A forked thread's root agent is rebuilt the same way from its source agent (`forkSourceAgentId`).
 */
export async function buildForkPrefix(deps: RuntimeDeps, agent: Agent): Promise<ChatMessage[]> {
  const sourceId = agent.forkSourceAgentId ?? agent.parentAgentId;
  if (!sourceId || !agent.forkMessageId) return [];
  const { store } = deps;
  const parent = await store.agents.get(sourceId);
  if (!parent) throw forkAnchorMissing(agent, `source agent ${sourceId}`);
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
  // Only a system message stands apart: a forked thread's own first fact is a user message and stays.
  const systemId = first?.role === "system" ? first.id : null;
  const upToFork = facts.filter((message) => message.seq <= forkMessage.seq && message.id !== systemId);
  const grandPrefix = parent.inherit === "fork" ? await buildForkPrefix(deps, parent) : [];
  // The source's own header as its projection assembled it (assembleHeader: system, its inherited
  // prefix unless the compaction folded it in, pinned message, summary, restored files), with the
  // restoration budgets of the source's window, then its facts up to the fork.
  const sourceThread = compaction ? await store.threads.get(parent.threadId) : null;
  const header = assembleHeader({
    systemPrompt:
      first?.role === "system" && grandPrefix.length === 0 && typeof first.content === "string"
        ? first.content
        : null,
    prefix: grandPrefix,
    compaction,
    state: null,
    restoredFiles: restoredFilesOf(compaction),
    ...(sourceThread ? { restorationBudgets: restorationBudgetsFor(sourceThread.modelProfile) } : {}),
    tokenizer: deps.tokenizer,
  }).map((item) => item.message);
  return sanitizeMessages(repairToolPairs([...header, ...toChatMessages(upToFork)]).messages);
}

function forkAnchorMissing(agent: Agent, what: string): LongrunError {
  return new LongrunError(
    "conflict",
    `forked agent ${agent.id} cannot rebuild its inherited prefix: ${what} is missing from the source's log`,
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
