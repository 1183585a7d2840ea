import type { LongrunEvent } from "@longrun/protocol";
import type { Draft } from "./draft.ts";
import type { CompactionEconomy, CompactionNotice } from "./thread-state.ts";

const UNKNOWN_AGENT = "unknown";

/** The agent an event is about ("unknown" for thread-level events). */
export function agentOf(event: LongrunEvent): string {
  return event.agentId ?? UNKNOWN_AGENT;
}

export type CompactionEventOf = Extract<
  LongrunEvent,
  { type: "compaction.started" | "compaction.completed" | "compaction.failed" | "compaction.skipped" }
>;

/** Applies a compaction.* event to its notice (one per compaction key, whatever order its events come in). */
export function applyCompaction(draft: Draft, event: CompactionEventOf): void {
  const compactions = draft.record("compactions");
  const key = event.data.compactionKey;
  const known = compactions[key];
  const base: CompactionNotice = known ?? {
    key,
    compactionId: null,
    agentId: agentOf(event),
    phase: "started",
    trigger: event.data.trigger,
    tokensBefore: 0,
    failures: 0,
    at: event.at,
    eventSeq: event.seq,
  };
  switch (event.type) {
    case "compaction.started":
      // A late "started" never hides a finished compaction.
      if (known && known.phase !== "started") return;
      compactions[key] = {
        ...base,
        tokensBefore: event.data.tokensBefore,
        at: event.at,
        eventSeq: event.seq,
      };
      return;
    case "compaction.completed": {
      const data = event.data;
      compactions[key] = {
        ...base,
        compactionId: data.compactionId,
        phase: "completed",
        strategy: data.strategy,
        trigger: data.trigger,
        tokensBefore: data.tokensBefore,
        tokensAfter: data.tokensAfter,
        saved: data.saved,
        restored: data.restored,
        historyFile: data.historyFile,
        cutoffMessageId: data.cutoffMessageId,
        ...(data.cutoffSeq === undefined ? {} : { cutoffSeq: data.cutoffSeq }),
        ...(data.warnings && data.warnings.length > 0 ? { warnings: data.warnings } : {}),
        economy: economyOf(data),
        at: event.at,
        eventSeq: event.seq,
      };
      return;
    }
    case "compaction.skipped":
      if (known?.phase === "completed") return;
      compactions[key] = {
        ...base,
        phase: "skipped",
        reason: event.data.reason,
        at: event.at,
        eventSeq: event.seq,
      };
      return;
    case "compaction.failed":
      if (known?.phase === "completed") return;
      compactions[key] = {
        ...base,
        phase: "failed",
        reason: event.data.reason,
        breaker: event.data.breaker,
        contextExhausted: event.data.contextExhausted,
        failures: base.failures + 1,
        at: event.at,
        eventSeq: event.seq,
      };
      return;
  }
}

/** The cost figures a `compaction.completed` carries (each absent on servers that did not send it). */
function economyOf(
  data: Extract<CompactionEventOf, { type: "compaction.completed" }>["data"],
): CompactionEconomy {
  const { reason, expectedSaving, summaryForm, summaryCost, prepared } = data;
  return { reason, expectedSaving, summaryForm, summaryCost, prepared };
}
