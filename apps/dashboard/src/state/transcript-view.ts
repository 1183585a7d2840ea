import type { TranscriptMessage } from "./thread-state.ts";
import type { TranscriptEntry } from "./transcript.ts";

// What the transcript draws from its entries: the text a search reads, the filters, and rows of
// consecutive compaction notices folded into one. The entries themselves are built in transcript.ts.

/** The searchable text of an entry (message text, tool names, arguments and results). */
export function entryText(entry: TranscriptEntry, textOf: (message: TranscriptMessage) => string): string {
  if (entry.kind === "compaction") return `compaction ${entry.notice.trigger} ${entry.notice.reason ?? ""}`;
  if (entry.kind === "run")
    return `run ${entry.run.kind ?? ""} ${entry.run.status} ${entry.run.error?.message ?? ""}`;
  const parts = [textOf(entry.message)];
  for (const call of entry.message.toolCalls ?? []) {
    parts.push(call.function.name, call.function.arguments);
    const result = entry.results[call.id];
    if (result) parts.push(textOf(result));
  }
  return parts.join("\n");
}

export type TranscriptFilter = "all" | "tools" | "errors" | "compactions" | "runs";

/** Whether an entry passes a filter: tool calls, failures, compaction notices, run boundaries. */
export function passesFilter(entry: TranscriptEntry, filter: TranscriptFilter): boolean {
  switch (filter) {
    case "all":
      return true;
    case "tools":
      return entry.kind === "message" && (entry.message.toolCalls?.length ?? 0) > 0;
    case "errors":
      if (entry.kind === "run") return entry.run.status === "failed" || entry.run.status === "cancelled";
      if (entry.kind === "compaction") return entry.notice.phase === "failed";
      return (
        (entry.message.toolStatus !== undefined && entry.message.toolStatus !== "ok") ||
        Object.values(entry.results).some((result) => result.toolStatus && result.toolStatus !== "ok")
      );
    case "compactions":
      return entry.kind === "compaction";
    case "runs":
      return entry.kind === "run";
  }
}

type CompactionEntry = Extract<TranscriptEntry, { kind: "compaction" }>;

/** What the transcript draws: its entries, with consecutive compaction notices folded into one row. */
export type ShownEntry = TranscriptEntry | { kind: "compactions"; key: string; entries: CompactionEntry[] };

/** Part of a row of compactions: a notice, or the end of the /compact run that made one. */
function inCompactionRun(entry: TranscriptEntry | undefined): boolean {
  return entry?.kind === "compaction" || (entry?.kind === "run" && entry.run.kind === "compact");
}

/**
 * Folds every run of two or more consecutive compaction notices (with the ends of the /compact runs
 * between them) into one row — a long log read from its end starts with hundreds of them in a row —
 * except the runs whose row key is in `expanded`.
 */
export function foldCompactions(
  entries: readonly TranscriptEntry[],
  expanded: ReadonlySet<string>,
): ShownEntry[] {
  const shown: ShownEntry[] = [];
  let index = 0;
  while (index < entries.length) {
    const entry = entries[index] as TranscriptEntry;
    let end = index;
    while (entry.kind === "compaction" && inCompactionRun(entries[end])) end++;
    const key = `compactions:${entry.key}`;
    const notices = entries
      .slice(index, end)
      .filter((inner): inner is CompactionEntry => inner.kind === "compaction");
    if (notices.length >= 2 && !expanded.has(key)) {
      shown.push({ kind: "compactions", key, entries: notices });
      index = end;
    } else if (notices.length >= 2) {
      // Unfolded: its later notices must not start a row of their own.
      for (const inner of entries.slice(index, end)) shown.push(inner);
      index = end;
    } else {
      shown.push(entry);
      index++;
    }
  }
  return shown;
}

/** Where an entry is drawn: its own row, or the folded row that holds it (`folded`: that row's key). */
export function locateEntry(
  shown: readonly ShownEntry[],
  key: string,
): { index: number; folded: string | null } | null {
  for (let index = 0; index < shown.length; index++) {
    const entry = shown[index] as ShownEntry;
    if (entry.key === key) return { index, folded: null };
    if (entry.kind === "compactions" && entry.entries.some((inner) => inner.key === key))
      return { index, folded: entry.key };
  }
  return null;
}
