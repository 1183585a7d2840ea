import type { CompactionEvent, StoredMessage } from "@longrun/protocol";

/** Where the raw part of a projection starts, and how that was decided. */
export interface Boundary {
  /** Index into the given messages of the first retained message. */
  startIndex: number;
  /** "id": cutoffMessageId found; "index": fell back to cutoffIndex; "none": no compaction. */
  resolvedBy: "id" | "index" | "none";
  /** Id of the first retained message after the tool-result check (null: nothing retained). */
  firstMessageId: string | null;
  /** Leading tool results skipped so the raw part never opens on one. */
  skippedToolResults: number;
}

/**
 * Resolves a compaction's boundary in the given facts: by cutoffMessageId first, else the
 * first message whose seq is at or after cutoffIndex; then advances past leading tool results.
 */
export function resolveBoundary(
  messages: readonly StoredMessage[],
  compaction: Pick<CompactionEvent, "cutoffMessageId" | "cutoffIndex"> | null,
): Boundary {
  let startIndex = 0;
  let resolvedBy: Boundary["resolvedBy"] = "none";
  if (compaction) {
    const byId =
      compaction.cutoffMessageId === null
        ? -1
        : messages.findIndex((message) => message.id === compaction.cutoffMessageId);
    if (byId >= 0) {
      startIndex = byId;
      resolvedBy = "id";
    } else {
      const byIndex = messages.findIndex((message) => message.seq >= compaction.cutoffIndex);
      startIndex = byIndex >= 0 ? byIndex : messages.length;
      resolvedBy = "index";
    }
  }
  let skippedToolResults = 0;
  while (startIndex < messages.length && messages[startIndex]?.role === "tool") {
    startIndex++;
    skippedToolResults++;
  }
  return {
    startIndex,
    resolvedBy,
    firstMessageId: messages[startIndex]?.id ?? null,
    skippedToolResults,
  };
}
