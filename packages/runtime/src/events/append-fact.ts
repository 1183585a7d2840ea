import type { NewMessage, StoredMessage } from "@longrun/protocol";
import type { UnitOfWork } from "@longrun/store";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { type Announce, commit } from "./commit.ts";

/** Where a fact is written: its thread, agent, run, and the lease fence of the writer. */
export interface FactTarget {
  threadId: string;
  agentId: string;
  runId?: string;
  fence?: number;
}

/** Appends one fact under the target's fence and queues its `message.completed`, inside a transaction. */
export async function appendFactIn(
  unit: UnitOfWork,
  announce: Announce,
  where: FactTarget,
  message: NewMessage & { tokenCount?: number },
): Promise<StoredMessage> {
  const [stored] = await unit.appendMessages(where.agentId, [message], { fence: where.fence });
  const fact = stored as StoredMessage;
  announce({
    threadId: where.threadId,
    agentId: where.agentId,
    runId: where.runId,
    type: "message.completed",
    data: {
      messageId: fact.id,
      seq: fact.seq,
      role: fact.role,
      content: fact.content,
      toolCalls: fact.toolCalls,
      toolCallId: fact.toolCallId,
      toolStatus: fact.toolStatus,
      usage: fact.usage,
    },
  });
  return fact;
}

/** Appends one fact under the caller's fence and announces it (one transaction). */
export async function appendFact(
  deps: Pick<RuntimeDeps, "store" | "events" | "counter">,
  where: FactTarget,
  message: NewMessage,
): Promise<StoredMessage> {
  const counted = await withTokenCount(deps, message);
  return commit(deps, (unit, announce) => appendFactIn(unit, announce, where, counted));
}

/**
 * The message with its token count, counted before the write transaction (a large message off the
 * event loop): counting inside the transaction would hold the database's write lock meanwhile.
 */
export async function withTokenCount(
  deps: Pick<RuntimeDeps, "counter">,
  message: NewMessage,
): Promise<NewMessage & { tokenCount?: number }> {
  return deps.counter ? { ...message, tokenCount: await deps.counter.count(message) } : message;
}
