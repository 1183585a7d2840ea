import { sanitizeMessage } from "@longrun/compaction";
import type { ChatMessage, StoredMessage } from "@longrun/protocol";

/**
 * The projected messages without the reasoning state a provider already refused: every message built
 * from a fact at or before `refusedThrough` (the newest fact when the refusal came) leaves its state out,
 * so the agent does not meet the same refusal at every step; state issued after it is replayed as usual.
 */
export function withoutRefusedReasoning(
  projection: { messages: ChatMessage[]; sourceIds: (string | null)[] },
  facts: readonly StoredMessage[],
  refusedThrough: number | undefined,
): ChatMessage[] {
  if (refusedThrough === undefined) return projection.messages;
  const seqOf = new Map(facts.map((fact) => [fact.id, fact.seq]));
  return projection.messages.map((message, index) => {
    const source = projection.sourceIds[index];
    const seq = source ? seqOf.get(source) : undefined;
    return seq !== undefined && seq <= refusedThrough ? sanitizeMessage(message) : message;
  });
}
