import type { CompactionCoverage } from "@longrun/protocol";
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from "react";
import type { EarlierMessages } from "../hooks/use-thread-sync.ts";
import { textOf } from "../lib/format.ts";
import { MessageLog } from "../state/message-log.ts";
import type { ThreadState, TranscriptMessage } from "../state/thread-state.ts";
import { type TranscriptBuild, updateTranscript } from "../state/transcript.ts";
import {
  entryText,
  foldCompactions,
  passesFilter,
  type ShownEntry,
  type TranscriptFilter,
} from "../state/transcript-view.ts";

const messageText = (message: TranscriptMessage) => textOf(message.content);

/**
 * An agent's transcript entries and the ones the search and filter let through. Searching or filtering
 * covers the whole log, so it reads what is not read yet.
 */
export function useTranscriptEntries(
  thread: ThreadState,
  agentId: string,
  earlier: EarlierMessages,
  coverage: Readonly<Record<string, CompactionCoverage>>,
) {
  // Rebuilt only when this agent's messages, compactions or runs change, not on every streamed token.
  // Deferred: while events stream in, rebuilding a long transcript yields to scrolling and input.
  const agentMessages = useDeferredValue(thread.messages[agentId]);
  // Deferred with the messages, so it always describes the messages this render shows.
  const readFrom = useDeferredValue(thread.messagesReadFrom[agentId]);
  /** Older messages exist that have not been read. */
  const unread = readFrom !== undefined && readFrom > -1;
  const compactions = useDeferredValue(thread.compactions);
  const runs = useDeferredValue(thread.runs);
  // Each build starts from the last one of this agent: a streamed batch costs what it changed, not a
  // pass over the messages (unchanged rows stay the same objects).
  const last = useRef<{ agentId: string; build: TranscriptBuild } | null>(null);
  const build = useMemo(() => {
    const previous = last.current?.agentId === agentId ? last.current.build : null;
    const next = updateTranscript(
      previous,
      {
        messages: { [agentId]: agentMessages ?? MessageLog.empty },
        messagesReadFrom: readFrom === undefined ? {} : { [agentId]: readFrom },
        compactions,
        runs,
      },
      agentId,
      coverage,
    );
    last.current = { agentId, build: next };
    return next;
  }, [agentMessages, readFrom, compactions, runs, agentId, coverage]);
  const entries = build.entries;
  const [query, setQuery] = useState("");
  const [filter, setFilter] = useState<TranscriptFilter>("all");
  /** Rows of consecutive compaction notices the reader unfolded, by row key. */
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set());
  const shown = useMemo((): ShownEntry[] => {
    const needle = query.trim().toLowerCase();
    // Unnarrowed, runs of compaction notices fold into one row; a search or filter lists each match.
    if (!needle && filter === "all") return foldCompactions(entries, expanded);
    return entries.filter(
      (entry) =>
        passesFilter(entry, filter) &&
        (!needle || entryText(entry, messageText).toLowerCase().includes(needle)),
    );
  }, [entries, query, filter, expanded]);
  // Searching or filtering covers the whole log: read what is not read yet.
  const narrowed = query.trim() !== "" || filter !== "all";
  useEffect(() => {
    if (narrowed && unread) earlier.load(null);
  }, [narrowed, unread, earlier]);
  const expand = useCallback((key: string) => setExpanded((current) => new Set(current).add(key)), []);
  return {
    entries,
    /** The build the entries come from: its call ids and its entries with a failed call. */
    build,
    shown,
    readFrom,
    unread,
    narrowed,
    query,
    setQuery,
    filter,
    setFilter,
    expand,
  };
}
