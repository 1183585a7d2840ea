import { useLayoutEffect, useMemo, useRef, useState } from "react";
import type { ThreadState } from "../state/thread-state.ts";
import { buildTranscript, runningTools } from "../state/transcript.ts";
import { CompactionNoticeView } from "./compaction-notice.tsx";
import { ToolCallBlock } from "./tool-call-block.tsx";
import { TranscriptMessageView } from "./transcript-message.tsx";

const VISIBLE_ENTRIES = 200;

/** The selected agent's live transcript: messages, tool calls with results, compaction notices, streaming text. */
export function Transcript({
  thread,
  agentId,
  onOpenHistory,
}: {
  thread: ThreadState;
  agentId: string;
  onOpenHistory: (agentId: string) => void;
}) {
  // Rebuilt only when this agent's messages or the compactions change, not on every streamed token.
  const agentMessages = thread.messages[agentId];
  const compactions = thread.compactions;
  const entries = useMemo(
    () => buildTranscript({ messages: { [agentId]: agentMessages ?? {} }, compactions }, agentId),
    [agentMessages, compactions, agentId],
  );
  const [limit, setLimit] = useState(VISIBLE_ENTRIES);
  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const lastScrollTop = useRef(0);
  const streaming = thread.streaming[agentId];
  const running = runningTools(thread, agentId).filter(
    (tool) => !entries.some((entry) => entry.kind === "message" && entry.results[tool.callId]),
  );
  const hidden = Math.max(0, entries.length - limit);
  // Follow new output while the reader is at the bottom; leave them alone when they scrolled up. After every
  // render, before paint: entries that grew (a tool result folded in, a running tool, a removed preview)
  // change the height without changing the entry count, and must not leave the view stranded mid-way.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element || !pinned.current) return;
    element.scrollTop = element.scrollHeight;
    lastScrollTop.current = element.scrollTop;
  });
  return (
    <div
      className="transcript"
      data-testid="transcript"
      data-agent-id={agentId}
      data-entries={entries.length}
      ref={scroller}
      onScroll={(event) => {
        const element = event.currentTarget;
        const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
        // Only the reader scrolling up unpins: content that grew between our scroll and this (async) event
        // also leaves us far from the bottom, and must not stop the following.
        if (atBottom) pinned.current = true;
        else if (element.scrollTop < lastScrollTop.current) pinned.current = false;
        lastScrollTop.current = element.scrollTop;
      }}
    >
      {entries.length === 0 && !streaming && <p className="muted">No messages yet.</p>}
      {hidden > 0 && (
        <button
          type="button"
          className="link"
          data-testid="transcript-show-earlier"
          onClick={() => setLimit(limit + VISIBLE_ENTRIES)}
        >
          Show {Math.min(hidden, VISIBLE_ENTRIES)} earlier entries ({hidden} hidden)
        </button>
      )}
      {entries
        .slice(hidden)
        .map((entry) =>
          entry.kind === "message" ? (
            <TranscriptMessageView
              key={entry.key}
              message={entry.message}
              results={entry.results}
              tools={thread.tools}
            />
          ) : (
            <CompactionNoticeView
              key={entry.key}
              notice={entry.notice}
              onOpenHistory={() => onOpenHistory(agentId)}
            />
          ),
        )}
      {running.map((tool) => (
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
  );
}
