import { memo } from "react";
import { sameRange } from "../state/removed-ranges.ts";
import type { AgentNode, Measurement, ThreadState, TranscriptMessage } from "../state/thread-state.ts";
import { ToolCalls } from "../state/tool-calls.ts";
import type { ShownEntry } from "../state/transcript-view.ts";
import { CompactionNoticeView } from "./compaction-notice.tsx";
import { CompactionRunRow } from "./compaction-run.tsx";
import type { TimeTravel } from "./from-here.tsx";
import type { HistoryRange } from "./history-panel.tsx";
import { RunMarker } from "./run-marker.tsx";
import { TranscriptMessageView } from "./transcript-message.tsx";
import type { useCompactionDetails } from "./use-compaction-details.ts";

const NO_TOOLS: ThreadState["tools"] = ToolCalls.empty;

interface EntryProps {
  entry: ShownEntry;
  /** Live tool activity of the thread (only a message with a call still waiting for its result reads it). */
  tools: ThreadState["tools"];
  decisions: ThreadState["decisions"];
  /** The agent's measurements: a notice says the step it is as of. */
  measurements: readonly Measurement[] | undefined;
  spawned: Record<string, AgentNode[]>;
  details: ReturnType<typeof useCompactionDetails>["details"];
  onOpenHistory: (range: HistoryRange | null) => void;
  onOpenDiff?: ((compactionId: string) => void) | undefined;
  onSelectAgent: (agentId: string) => void;
  /** Unfolds a row of consecutive compaction notices. */
  onExpand: (key: string) => void;
  /** Fork or rewind from an entry; null where that is not possible (a sub-agent's transcript). */
  travel: TimeTravel | null;
}

/**
 * One transcript entry: a message with its tool results, a run boundary, or a compaction notice.
 * Memoized on what it draws: while a run streams, the transcript is rebuilt (new entry objects) for every
 * batch of events, and a drawn row whose content did not change is not drawn again.
 */
export const Entry = memo(function Entry({
  entry,
  tools,
  decisions,
  measurements,
  spawned,
  details,
  onOpenHistory,
  onOpenDiff,
  onSelectAgent,
  onExpand,
  travel,
}: EntryProps) {
  if (entry.kind === "compactions") {
    return (
      <CompactionRunRow
        notices={entry.entries.map((inner) => inner.notice)}
        onExpand={() => onExpand(entry.key)}
      />
    );
  }
  if (entry.kind === "message") {
    return (
      <TranscriptMessageView
        message={entry.message}
        results={entry.results}
        tools={waitingForResult(entry) ? tools : NO_TOOLS}
        compacted={entry.compacted}
        decisions={decisions}
        spawned={spawned}
        onSelectAgent={onSelectAgent}
        travel={travel}
      />
    );
  }
  if (entry.kind === "run") return <RunMarker run={entry.run} />;
  return (
    <CompactionNoticeView
      notice={entry.notice}
      removed={entry.removed}
      detail={entry.notice.compactionId ? (details[entry.notice.compactionId] ?? null) : null}
      asOfStep={stepBefore(measurements ?? [], entry.notice.eventSeq)}
      onOpenHistory={onOpenHistory}
      onOpenDiff={onOpenDiff}
      travel={travel}
    />
  );
}, sameRow);

/** Live tool activity only matters to calls without a result yet. */
function waitingForResult(entry: Extract<ShownEntry, { kind: "message" }>): boolean {
  return (entry.message.toolCalls ?? []).some((call) => !entry.results[call.id]);
}

/** Whether a row would draw the same: the same entry content and the same parts of the thread it reads. */
function sameRow(before: EntryProps, after: EntryProps): boolean {
  for (const key of Object.keys(after) as (keyof EntryProps)[]) {
    if (key === "entry" || key === "tools" || key === "measurements" || key === "details") continue;
    if (before[key] !== after[key]) return false;
  }
  const entry = after.entry;
  if (!sameEntry(before.entry, entry)) return false;
  if (entry.kind === "message")
    return (
      before.tools === after.tools ||
      (!waitingForResult(entry) && !waitingForResult(before.entry as typeof entry))
    );
  if (entry.kind === "compaction")
    return (
      before.measurements === after.measurements &&
      (!entry.notice.compactionId ||
        before.details[entry.notice.compactionId] === after.details[entry.notice.compactionId])
    );
  return true;
}

/** Same content: a rebuilt entry holds the same message, results, notice, run or range objects. */
function sameEntry(before: ShownEntry, after: ShownEntry): boolean {
  if (before === after) return true;
  if (before.key !== after.key || before.kind !== after.kind) return false;
  switch (after.kind) {
    case "message": {
      const previous = before as typeof after;
      return (
        previous.message === after.message &&
        previous.compacted === after.compacted &&
        sameRecord(previous.results, after.results)
      );
    }
    case "compaction": {
      const previous = before as typeof after;
      return previous.notice === after.notice && sameRange(previous.removed, after.removed);
    }
    case "run":
      return (before as typeof after).run === after.run;
    case "compactions": {
      const previous = (before as typeof after).entries;
      return (
        previous.length === after.entries.length &&
        after.entries.every((inner, index) => previous[index]?.notice === inner.notice)
      );
    }
  }
}

function sameRecord(before: Record<string, TranscriptMessage>, after: Record<string, TranscriptMessage>) {
  const keys = Object.keys(after);
  return keys.length === Object.keys(before).length && keys.every((key) => before[key] === after[key]);
}

/** The step of the agent's last measurement before an event: "as of step N". */
function stepBefore(series: readonly Measurement[], eventSeq: number): number | null {
  let step: number | null = null;
  for (const point of series) if (point.eventSeq < eventSeq) step = point.step;
  return step;
}
