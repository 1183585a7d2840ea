import type { CompactionEvent, StoredMessage } from "@longrun/protocol";

/** The answers whose provider state a request body carries (each reasoning item found by its payload). */
export function carriedAnswers(body: unknown, facts: readonly StoredMessage[]): StoredMessage[] {
  const text = JSON.stringify(body);
  return facts.filter((fact) =>
    (fact.providerState?.reasoningDetails ?? []).some((detail) => {
      const key =
        detail.type === "reasoning.encrypted"
          ? detail.data
          : detail.type === "reasoning.text"
            ? detail.signature
            : undefined;
      return typeof key === "string" && key.length > 0 && text.includes(key);
    }),
  );
}

/** The compaction in force when a request was sent: the newest one recorded before it. */
export function inForceAt(at: number, compactions: readonly CompactionEvent[]): CompactionEvent | null {
  return compactions.filter((compaction) => compaction.createdAt <= at).at(-1) ?? null;
}

/** The answers a request carried state of that was issued on another compaction than the one in force. */
export function staleAnswers(
  entry: { at: number; body: unknown },
  facts: readonly StoredMessage[],
  compactions: readonly CompactionEvent[],
): StoredMessage[] {
  const inForce = inForceAt(entry.at, compactions)?.id ?? null;
  return carriedAnswers(entry.body, facts).filter(
    (fact) => (fact.providerState?.issuedOnCompactionId ?? null) !== inForce,
  );
}
