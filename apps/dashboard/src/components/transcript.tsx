import {
  type KeyboardEvent,
  useDeferredValue,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import type { EarlierMessages } from "../hooks/use-thread-sync.ts";
import { textOf } from "../lib/format.ts";
import type { AgentNode, ThreadState, TranscriptMessage } from "../state/thread-state.ts";
import {
  buildTranscript,
  entryText,
  passesFilter,
  runningTools,
  type TranscriptEntry,
  type TranscriptFilter,
} from "../state/transcript.ts";
import type { HistoryRange } from "./history-panel.tsx";
import { ToolCallBlock } from "./tool-call-block.tsx";
import { Entry } from "./transcript-entry.tsx";
import { TranscriptToolbar } from "./transcript-toolbar.tsx";
import { useCompactionDetails } from "./use-compaction-details.ts";

/** Entries rendered at once; older ones come back with "Show earlier" (the rest stay out of the DOM). */
const WINDOW = 200;
/** Seqs of the log read at a time when "Show earlier" reaches the oldest message read so far. */
const EARLIER_SEQS = 400;
/** A scroll this soon after a wheel, touch, key or scrollbar press is the reader's. */
const INTENT_MS = 600;
const messageText = (message: TranscriptMessage) => textOf(message.content);

/**
 * The selected agent's transcript, windowed and scroll-anchored: while the reader is at the bottom it
 * follows new output; once they scroll up, nothing they are reading moves (the window's start is frozen
 * and new entries only add below, counted in "N new — jump to latest"). Search and filters narrow it.
 * A long log is read from its end: older parts are read when the reader shows earlier entries, searches,
 * filters or picks an old step on the chart.
 */
export function Transcript({
  thread,
  agentId,
  onOpenHistory,
  onSelectAgent,
  earlier,
  pickedStep = null,
}: {
  thread: ThreadState;
  agentId: string;
  earlier: EarlierMessages;
  onOpenHistory: (range: HistoryRange | null) => void;
  onSelectAgent: (agentId: string) => void;
  /** A step picked on the chart: the transcript shows and focuses its entry. */
  pickedStep?: { step: number; at: number } | null;
}) {
  // Rebuilt only when this agent's messages, compactions or runs change, not on every streamed token.
  // Deferred: while events stream in, rebuilding a long transcript yields to scrolling and input.
  const agentMessages = useDeferredValue(thread.messages[agentId]);
  // Deferred with the messages, so it always describes the messages this render shows.
  const readFrom = useDeferredValue(thread.messagesReadFrom[agentId]);
  /** Older messages exist that have not been read. */
  const unread = readFrom !== undefined && readFrom > -1;
  const compactions = useDeferredValue(thread.compactions);
  const runs = useDeferredValue(thread.runs);
  const { agents } = thread;
  const entries = useMemo(
    () =>
      buildTranscript(
        {
          messages: { [agentId]: agentMessages ?? {} },
          messagesReadFrom: readFrom === undefined ? {} : { [agentId]: readFrom },
          compactions,
          runs,
        },
        agentId,
      ),
    [agentMessages, readFrom, compactions, runs, agentId],
  );
  const spawned = useMemo(() => spawnedByCall(agents), [agents]);
  const details = useCompactionDetails(agentId, entries);
  const [query, setQuery] = useState("");
  const [filter, setFilter] = useState<TranscriptFilter>("all");
  const shown = useMemo(() => {
    const needle = query.trim().toLowerCase();
    if (!needle && filter === "all") return entries;
    return entries.filter(
      (entry) =>
        passesFilter(entry, filter) &&
        (!needle || entryText(entry, messageText).toLowerCase().includes(needle)),
    );
  }, [entries, query, filter]);
  // Searching or filtering covers the whole log: read what is not read yet.
  const narrowed = query.trim() !== "" || filter !== "all";
  useEffect(() => {
    if (narrowed && unread) earlier.load(null);
  }, [narrowed, unread, earlier]);
  const [extra, setExtra] = useState(0);
  const [following, setFollowing] = useState(true);
  /**
   * While the reader is scrolled up: the first entry shown (null: the very first) and the last entry
   * there was, by key, so entries read into the log above them move nothing.
   */
  const frozen = useRef<{ startKey: string | null; lastKey: string | null } | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const body = useRef<HTMLDivElement>(null);
  /** `following` as of the last event handled, ahead of the render that catches up with it. */
  const followingNow = useRef(true);
  /** When the reader last did something that scrolls (wheel, touch, keys, the scrollbar). */
  const intent = useRef(0);
  const markIntent = () => {
    intent.current = Date.now();
  };
  const followStart = Math.max(0, shown.length - WINDOW - extra);
  const frozenAt = !following && frozen.current ? frozenIndexes(shown, frozen.current) : null;
  const start = frozenAt ? Math.min(frozenAt.start, followStart) : followStart;
  const newCount = frozenAt ? shown.length - 1 - frozenAt.last : 0;
  const streaming = thread.streaming[agentId];
  const running = runningTools(thread, agentId);
  // Follow new output while the reader is at the bottom. After every render, before paint: entries that
  // grew (a tool result folded in, a running tool, a removed preview) change the height without changing
  // the entry count, and must not leave the view stranded mid-way.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || !following) return;
    element.scrollTop = element.scrollHeight;
  });
  // Entries also change height without a render (an off-screen entry laid out for the first time, a
  // details element opened): while following, any change of the content's height keeps the bottom in view.
  useEffect(() => {
    const element = scroller.current;
    const content = body.current;
    if (!element || !content || !following) return;
    const observer = new ResizeObserver(() => {
      // The reader may have scrolled up since this was set up, before the re-render that disconnects it.
      if (followingNow.current) element.scrollTop = element.scrollHeight;
    });
    observer.observe(content);
    return () => observer.disconnect();
  }, [following]);
  const follow = (on: boolean) => {
    followingNow.current = on;
    if (on) frozen.current = null;
    else frozen.current ??= { startKey: shown[start]?.key ?? null, lastKey: shown.at(-1)?.key ?? null };
    setFollowing(on);
  };
  // A step picked on the chart: bring its entry into the window, stop following, and focus it.
  const [pendingFocus, setPendingFocus] = useState<number | null>(null);
  const handledPick = useRef<number | null>(null);
  // Only a new pick moves the view (once its part of the log is read); the shown entries changing under
  // it must not.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once per pick
  useEffect(() => {
    if (!pickedStep || handledPick.current === pickedStep.at || readFrom === undefined) return;
    if (pickedStep.step <= readFrom) {
      earlier.load(pickedStep.step - 1);
      return;
    }
    handledPick.current = pickedStep.at;
    const index = shown.findIndex(
      (entry) => entry.kind === "message" && entry.message.seq >= pickedStep.step,
    );
    if (index < 0) return;
    const target = shown[index];
    if (target?.kind !== "message") return;
    if (index < start) setExtra((value) => value + (start - index));
    follow(false);
    if (frozen.current && index < start) frozen.current.startKey = target.key;
    setPendingFocus(target.message.seq);
  }, [pickedStep, readFrom]);
  useEffect(() => {
    if (pendingFocus === null) return;
    const element = scroller.current?.querySelector<HTMLElement>(`[data-entry][data-seq="${pendingFocus}"]`);
    if (!element) return;
    element.scrollIntoView({ block: "center" });
    element.focus({ preventScroll: true });
    setPendingFocus(null);
  });
  const jumpToLatest = () => {
    setExtra(0);
    follow(true);
  };
  return (
    <section className="transcript-pane" aria-label="Transcript">
      <TranscriptToolbar
        query={query}
        filter={filter}
        matches={shown.length}
        total={entries.length}
        onQuery={(value) => {
          setQuery(value);
          jumpToLatest();
        }}
        onFilter={(value) => {
          setFilter(value);
          jumpToLatest();
        }}
      />
      <div
        className="transcript"
        data-testid="transcript"
        data-agent-id={agentId}
        data-entries={entries.length}
        data-read-from={readFrom ?? ""}
        data-following={following ? "true" : "false"}
        role="log"
        aria-label="Transcript entries (arrow keys move between entries)"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable log must be reachable by keyboard to scroll it
        tabIndex={0}
        ref={scroller}
        onKeyDown={(event) => {
          markIntent();
          moveFocus(event);
        }}
        onWheel={markIntent}
        onTouchMove={markIntent}
        onPointerDown={(event) => {
          // A press on the scrollbar lands on the scroller itself.
          if (event.target === event.currentTarget) markIntent();
        }}
        onScroll={(event) => {
          const element = event.currentTarget;
          const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
          // Only the reader unpins: content that grew or shrank (entries laid out, the window trimmed) also
          // moves the scroll position, and must not stop the following.
          if (atBottom && !following) follow(true);
          else if (!atBottom && following && Date.now() - intent.current < INTENT_MS) follow(false);
        }}
      >
        <div className="transcript-body" ref={body}>
          {shown.length === 0 && !streaming && (
            <p className="muted">{entries.length === 0 ? "No messages yet." : "Nothing matches."}</p>
          )}
          {(start > 0 || unread) && (
            <button
              type="button"
              className="link"
              data-testid="transcript-show-earlier"
              disabled={start === 0 && earlier.loading}
              onClick={() => {
                const next = start - WINDOW;
                // Past the oldest entry read: the window opens to the top, where the older part will be.
                if (frozen.current) frozen.current.startKey = next > 0 ? (shown[next]?.key ?? null) : null;
                setExtra(extra + WINDOW);
                if (unread && next < WINDOW) earlier.load(readFrom - EARLIER_SEQS);
              }}
            >
              {start > 0
                ? `Show ${Math.min(start, WINDOW)} earlier entries (${start} not shown${unread ? ", older ones not read yet" : ""})`
                : earlier.loading
                  ? "Reading earlier messages…"
                  : "Show earlier messages (not read yet)"}
            </button>
          )}
          {narrowed && unread && (
            <p className="muted small" data-testid="transcript-reading-earlier">
              Reading older messages: more matches may appear.
            </p>
          )}
          {shown.slice(start).map((entry) => (
            <Entry
              key={entry.key}
              entry={entry}
              thread={thread}
              spawned={spawned}
              details={details}
              onOpenHistory={onOpenHistory}
              onSelectAgent={onSelectAgent}
            />
          ))}
          {thread.historyLoaded &&
            running.map((tool) => (
              <ToolCallBlock
                key={tool.callId}
                callId={tool.callId}
                name={tool.name}
                argumentsText={tool.arguments}
                result={null}
                activity={tool}
              />
            ))}
          {streaming && (
            <div className="entry entry-assistant streaming" data-testid="streaming-text">
              <div className="entry-head">
                <span className="role">assistant</span>
                <span className="muted small">writing…</span>
              </div>
              <pre className="message-text">{streaming.text}</pre>
            </div>
          )}
        </div>
      </div>
      {newCount > 0 && (
        <button type="button" className="jump-latest" data-testid="jump-to-latest" onClick={jumpToLatest}>
          {newCount} new — jump to latest
        </button>
      )}
    </section>
  );
}

/** Where a frozen window starts and the last entry there was, as indexes into the shown entries now. */
function frozenIndexes(
  shown: readonly TranscriptEntry[],
  frozen: { startKey: string | null; lastKey: string | null },
): { start: number; last: number } {
  const indexOf = (key: string | null, fallback: number) => {
    if (key === null) return fallback;
    const index = shown.findIndex((entry) => entry.key === key);
    return index < 0 ? fallback : index;
  };
  return { start: indexOf(frozen.startKey, 0), last: indexOf(frozen.lastKey, shown.length - 1) };
}

/** Sub-agents by the spawn_agents call that created them. */
function spawnedByCall(agents: ThreadState["agents"]): Record<string, AgentNode[]> {
  const byCall: Record<string, AgentNode[]> = {};
  for (const agent of Object.values(agents)) {
    if (!agent.spawnCallId) continue;
    byCall[agent.spawnCallId] = [...(byCall[agent.spawnCallId] ?? []), agent];
  }
  return byCall;
}

/** Arrow keys (and j/k) move focus between entries; Home and End go to the first and last. */
function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
  const keys: Record<string, number> = {
    ArrowDown: 1,
    j: 1,
    ArrowUp: -1,
    k: -1,
    Home: -Infinity,
    End: Infinity,
  };
  const step = keys[event.key];
  if (step === undefined || (event.target as HTMLElement).closest("input, textarea, select")) return;
  const items = [...event.currentTarget.querySelectorAll<HTMLElement>("[data-entry]")];
  if (items.length === 0) return;
  event.preventDefault();
  const current = items.indexOf(document.activeElement as HTMLElement);
  const next =
    step === -Infinity
      ? 0
      : step === Infinity
        ? items.length - 1
        : Math.min(items.length - 1, Math.max(0, current === -1 ? items.length - 1 : current + step));
  items[next]?.focus();
}
