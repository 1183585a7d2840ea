import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import type { EarlierMessages } from "../hooks/use-thread-sync.ts";
import { drawnItem, useVirtualList } from "../hooks/use-virtual-list.ts";
import { binTimeline, type MarksMemo, navigatorMarks } from "../state/navigator.ts";
import { compactionNotices } from "../state/removed-ranges.ts";
import { useOptionalStore } from "../state/store-context.tsx";
import type { ThreadState } from "../state/thread-state.ts";
import { runningCalls } from "../state/transcript.ts";
import { locateEntry } from "../state/transcript-view.ts";
import type { TimeTravel } from "./from-here.tsx";
import type { HistoryRange } from "./history-panel.tsx";
import { type JumpTarget, RunNavigator } from "./run-navigator.tsx";
import { ToolCallBlock } from "./tool-call-block.tsx";
import { Entry } from "./transcript-entry.tsx";
import { inField, moveFocus, newSince, roveTabStops, spawnedByCall } from "./transcript-navigation.ts";
import { TranscriptToolbar } from "./transcript-toolbar.tsx";
import { useCompactionDetails } from "./use-compaction-details.ts";
import { useTranscriptEntries } from "./use-transcript-entries.ts";

/** Seqs of the log read at a time when the reader asks for messages older than those read. */
const EARLIER_SEQS = 400;
/** A scroll this soon after a wheel, touch, key or scrollbar press is the reader's. */
const INTENT_MS = 600;

/**
 * The selected agent's transcript, virtualized and scroll-anchored: only the entries near the view are
 * in the page. While the reader is at the bottom it follows new output; once they scroll up, nothing they
 * are reading moves (entries read in or grown above it are made up for, new ones add below and are
 * counted in "N new — jump to latest"). Search and filters narrow it.
 * A long log is read from its end: older parts are read when the reader shows earlier entries, searches,
 * filters or picks an old step on the chart.
 */
export function Transcript({
  thread,
  agentId,
  onOpenHistory,
  onOpenDiff,
  onSelectAgent,
  earlier,
  pickedStep = null,
}: {
  thread: ThreadState;
  agentId: string;
  earlier: EarlierMessages;
  onOpenHistory: (range: HistoryRange | null) => void;
  /** Opens a completed compaction's diff. */
  onOpenDiff?: (compactionId: string) => void;
  onSelectAgent: (agentId: string) => void;
  /** A step picked on the chart: the transcript shows and focuses its entry. */
  pickedStep?: { step: number; at: number } | null;
}) {
  const { details, coverage } = useCompactionDetails(agentId, thread.compactions);
  const { entries, build, shown, readFrom, unread, narrowed, query, setQuery, filter, setFilter, expand } =
    useTranscriptEntries(thread, agentId, earlier, coverage);
  const { callIds, failed } = build;
  // Absent when the transcript is rendered on its own (server-side tests): no fork buttons then.
  const store = useOptionalStore();
  const { measurements: allMeasurements, runs, decisions, approvals, compactions } = thread;
  const measurements = allMeasurements[agentId];
  // The marks of the last render: a streamed batch places only the compactions it added.
  const marksMemo = useRef<MarksMemo>({ current: null });
  const marks = useMemo(
    () =>
      navigatorMarks(
        { measurements: allMeasurements, runs, decisions, approvals },
        agentId,
        compactionNotices({ compactions }, agentId),
        failed,
        marksMemo.current,
      ),
    [allMeasurements, runs, decisions, approvals, compactions, failed, agentId],
  );
  const bins = useMemo(() => binTimeline(measurements ?? [], marks), [measurements, marks]);
  // Forks and rewinds are of the thread's root agent (sub-agents cannot be forked this way).
  const isRoot = thread.agents[agentId]?.parentAgentId === null;
  const threads = useRef(store?.state.threads ?? []);
  threads.current = store?.state.threads ?? [];
  const api = store?.api;
  const dispatch = store?.dispatch;
  const travel = useCallback<TimeTravel>(
    async (point, rewind) => {
      if (!api || !dispatch) return;
      const detail = await (rewind ? api.threads.rewind : api.threads.fork)(thread.threadId, point);
      dispatch({
        type: "threads.loaded",
        threads: [
          { ...detail, pendingApprovals: 0, stuckRuns: 0 },
          ...threads.current.filter((item) => item.id !== detail.id),
        ],
      });
      window.location.hash = `#/threads/${encodeURIComponent(detail.id)}`;
    },
    [api, dispatch, thread.threadId],
  );
  const spawned = useMemo(() => spawnedByCall(thread.agents), [thread.agents]);
  const [following, setFollowing] = useState(true);
  /** While the reader is scrolled up: the last entry there was when they did, by key. */
  const lastSeen = useRef<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const items = useRef<HTMLDivElement>(null);
  const keys = useMemo(() => shown.map((entry) => entry.key), [shown]);
  const virtual = useVirtualList({ keys, scroller, items, anchored: !following });
  const { first, end, padTop, padBottom } = virtual.range;
  /** `following` as of the last event handled, ahead of the render that catches up with it. */
  const followingNow = useRef(true);
  /** When the reader last did something that scrolls (wheel, touch, keys, the scrollbar). */
  const intent = useRef(0);
  const markIntent = () => {
    intent.current = Date.now();
  };
  const newCount = following ? 0 : newSince(shown, lastSeen.current);
  const streaming = thread.streaming[agentId];
  const tools = thread.tools;
  // A call its transcript draws is not drawn a second time as a loose block (the transcript's own calls:
  // the same deferred messages it draws).
  const running = useMemo(() => runningCalls(tools, agentId, callIds), [tools, agentId, callIds]);
  // Follow new output while the reader is at the bottom. After every render, before paint: entries that
  // grew (a tool result folded in, a running tool, a removed preview) change the height without changing
  // the entry count, and must not leave the view stranded mid-way.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || !following) return;
    element.scrollTop = element.scrollHeight;
  });
  // Entries also change height without a render (an entry measured for the first time, a
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
    if (on) lastSeen.current = null;
    else if (followingNow.current) lastSeen.current = shown.at(-1)?.key ?? null;
    followingNow.current = on;
    setFollowing(on);
  };
  // An entry to focus once it is drawn (a step picked on the chart, Home, End).
  const [pendingFocus, setPendingFocus] = useState<string | null>(null);
  const reach = (index: number) => {
    const target = shown[index];
    if (!target) return;
    follow(false);
    virtual.scrollToIndex(index);
    setPendingFocus(target.key);
  };
  /** A jump asked for (navigator, chart) and not reached yet: its part of the log may still be read. */
  const [jump, setJump] = useState<{ target: JumpTarget; at: number } | null>(null);
  useEffect(() => {
    if (pickedStep) setJump({ target: { step: pickedStep.step, key: null }, at: pickedStep.at });
  }, [pickedStep]);
  // Runs again as the log is read and entries unfold, until the target is drawn.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reach reads the current render's entries
  useEffect(() => {
    if (!jump || readFrom === undefined) return;
    let target = jump.target;
    if (target === "first-error") {
      // Errors in the part not read yet are not known: read the whole log first.
      if (unread) return earlier.load(null);
      const error = marks.find((mark) => mark.kind === "error");
      if (!error) return setJump(null);
      target = { step: error.step, key: error.entryKey };
    }
    if (target.step <= readFrom) return earlier.load(target.step - 1);
    if (target.key) {
      const found = locateEntry(shown, target.key);
      if (found?.folded) return expand(found.folded);
      if (found) {
        setJump(null);
        return reach(found.index);
      }
    }
    setJump(null);
    const step = target.step;
    const index = shown.findIndex((entry) => entry.kind === "message" && entry.message.seq >= step);
    reach(index >= 0 ? index : shown.length - 1);
  }, [jump, readFrom, shown, unread, marks]);
  /** The entry the reader is on: its controls are the transcript's only ones in the tab order. */
  const [activeKey, setActiveKey] = useState<string | null>(null);
  useLayoutEffect(() => roveTabStops(items.current, activeKey));
  useEffect(() => {
    if (pendingFocus === null) return;
    const element = drawnItem(items.current, pendingFocus)?.querySelector<HTMLElement>("[data-entry]");
    if (!element) return;
    element.scrollIntoView({ block: "center" });
    // Where it really is may differ from where its estimated height put it: what is drawn follows now.
    virtual.onScroll();
    element.focus({ preventScroll: true });
    setPendingFocus(null);
  });
  const jumpToLatest = () => follow(true);
  // Stable, so the navigator (memoized) is not drawn again on every scroll of the transcript.
  const onJump = useCallback((target: JumpTarget) => setJump({ target, at: Date.now() }), []);
  return (
    <section className="transcript-pane" aria-label="Transcript">
      <RunNavigator bins={bins} marks={marks} unread={unread} onJump={onJump} />
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
        data-drawn={end - first}
        role="log"
        aria-label="Transcript entries (arrow keys move between entries)"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable log must be reachable by keyboard to scroll it
        tabIndex={0}
        ref={scroller}
        onFocus={(event) => {
          const key = (event.target as HTMLElement).closest<HTMLElement>("[data-vkey]")?.dataset.vkey;
          if (key === undefined) return;
          // The reader is on an older entry (a click, Tab, a jump): following new output would pull it
          // away, between a press and its release, too.
          if (followingNow.current && key !== shown.at(-1)?.key) follow(false);
          if (key !== activeKey) setActiveKey(key);
        }}
        onKeyDown={(event) => {
          markIntent();
          // Home and End reach the list's ends, drawn or not; arrows move between drawn entries (the
          // focused one scrolls into view, and what is drawn follows).
          if (event.key === "Home" && first > 0 && !inField(event.target)) {
            event.preventDefault();
            reach(0);
          } else if (event.key === "End" && end < shown.length && !inField(event.target)) {
            event.preventDefault();
            jumpToLatest();
            setPendingFocus(shown.at(-1)?.key ?? null);
          } else moveFocus(event);
        }}
        onWheel={markIntent}
        onTouchMove={markIntent}
        onPointerDown={(event) => {
          // A press on the scrollbar lands on the scroller itself.
          if (event.target === event.currentTarget) markIntent();
        }}
        onScroll={(event) => {
          virtual.onScroll();
          const element = event.currentTarget;
          const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
          // Only the reader unpins: content that grew or shrank (entries laid out or measured) also
          // moves the scroll position, and must not stop the following.
          if (atBottom && !following) follow(true);
          else if (!atBottom && following && Date.now() - intent.current < INTENT_MS) follow(false);
        }}
      >
        <div className="transcript-body" ref={body}>
          {shown.length === 0 && !streaming && (
            <p className="muted">{entries.length === 0 ? "No messages yet." : "Nothing matches."}</p>
          )}
          {unread && readFrom !== undefined && (
            <button
              type="button"
              className="link"
              data-testid="transcript-show-earlier"
              disabled={earlier.loading}
              onClick={() => earlier.load(readFrom - EARLIER_SEQS)}
            >
              {earlier.loading ? "Reading earlier messages…" : "Show earlier messages (not read yet)"}
            </button>
          )}
          {narrowed && unread && (
            <p className="muted small" data-testid="transcript-reading-earlier">
              Reading older messages: more matches may appear.
            </p>
          )}
          <div
            className="transcript-items"
            ref={items}
            style={{ paddingTop: padTop, paddingBottom: padBottom }}
          >
            {shown.slice(first, end).map((entry) => (
              <div key={entry.key} data-vkey={entry.key}>
                <Entry
                  entry={entry}
                  tools={thread.tools}
                  decisions={thread.decisions}
                  measurements={measurements}
                  spawned={spawned}
                  details={details}
                  onOpenHistory={onOpenHistory}
                  onOpenDiff={onOpenDiff}
                  onSelectAgent={onSelectAgent}
                  onExpand={expand}
                  travel={isRoot && store ? travel : null}
                />
              </div>
            ))}
          </div>
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
