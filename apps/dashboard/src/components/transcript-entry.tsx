import type { AgentNode, ThreadState } from "../state/thread-state.ts";
import type { ShownEntry } from "../state/transcript.ts";
import { CompactionNoticeView } from "./compaction-notice.tsx";
import { CompactionRunRow } from "./compaction-run.tsx";
import type { TimeTravel } from "./from-here.tsx";
import type { HistoryRange } from "./history-panel.tsx";
import { RunMarker } from "./run-marker.tsx";
import { TranscriptMessageView } from "./transcript-message.tsx";
import type { useCompactionDetails } from "./use-compaction-details.ts";

const NO_TOOLS: ThreadState["tools"] = {};

/** One transcript entry: a message with its tool results, a run boundary, or a compaction notice. */
export function Entry({
  entry,
  thread,
  spawned,
  details,
  onOpenHistory,
  onOpenDiff,
  onSelectAgent,
  onExpand,
  travel,
}: {
  entry: ShownEntry;
  thread: ThreadState;
  spawned: Record<string, AgentNode[]>;
  details: ReturnType<typeof useCompactionDetails>["details"];
  onOpenHistory: (range: HistoryRange | null) => void;
  onOpenDiff?: ((compactionId: string) => void) | undefined;
  onSelectAgent: (agentId: string) => void;
  /** Unfolds a row of consecutive compaction notices. */
  onExpand: (key: string) => void;
  /** Fork or rewind from an entry; null where that is not possible (a sub-agent's transcript). */
  travel: TimeTravel | null;
}) {
  if (entry.kind === "compactions") {
    return (
      <CompactionRunRow
        notices={entry.entries.map((inner) => inner.notice)}
        onExpand={() => onExpand(entry.key)}
      />
    );
  }
  if (entry.kind === "message") {
    // Live tool activity only matters to calls without a result yet: the others get a constant, so a
    // tool event elsewhere does not re-render every message on screen.
    const waiting = (entry.message.toolCalls ?? []).some((call) => !entry.results[call.id]);
    return (
      <TranscriptMessageView
        message={entry.message}
        results={entry.results}
        tools={waiting ? thread.tools : NO_TOOLS}
        compacted={entry.compacted}
        decisions={thread.decisions}
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
      asOfStep={stepBefore(thread, entry.notice.agentId, entry.notice.eventSeq)}
      onOpenHistory={onOpenHistory}
      onOpenDiff={onOpenDiff}
      travel={travel}
    />
  );
}

/** The step of the agent's last measurement before an event: "as of step N". */
function stepBefore(thread: ThreadState, agentId: string, eventSeq: number): number | null {
  const series = thread.measurements[agentId] ?? [];
  let step: number | null = null;
  for (const point of series) if (point.eventSeq < eventSeq) step = point.step;
  return step;
}
