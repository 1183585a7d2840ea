import { useEffect, useRef, useState } from "react";
import { clip, formatAgo } from "../lib/format.ts";
import type { InboxItem } from "../state/app-reducer.ts";
import { useStore } from "../state/store-context.tsx";
import { type Decision, DecisionButtons } from "./decision-buttons.tsx";

/**
 * Every tool call waiting for a decision, across threads: the inbox (read after approval events), with the open thread's live
 * requests merged in (so a request shows here the moment it is made, and goes when it is decided).
 */
export function useInbox(): InboxItem[] {
  const { state } = useStore();
  const open = state.thread;
  const polled = (state.inbox ?? []).filter((item) => item.threadId !== open?.threadId);
  if (!open) return polled;
  const live: InboxItem[] = Object.values(open.approvals).map((request) => ({
    agentId: request.agentId ?? "",
    callId: request.callId,
    threadId: open.threadId,
    messageId: "",
    toolName: request.name,
    arguments: request.arguments,
    requestedAt: request.requestedAt,
    decision: null,
    reason: null,
    decidedAt: null,
    threadTitle: open.title ?? open.threadId,
    agentName: (request.agentId ? open.agents[request.agentId]?.name : undefined) ?? request.agentId ?? "",
  }));
  return [...polled, ...live].sort((left, right) => left.requestedAt - right.requestedAt);
}

/** The top bar's approvals button and the inbox it opens. */
export function ApprovalInbox({ onOpenThread }: { onOpenThread: (threadId: string) => void }) {
  const items = useInbox();
  const [open, setOpen] = useState(false);
  const threadId = useStore().state.thread?.threadId ?? null;
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  // Another thread opened (from the list, a link, the inbox itself): the popover was about the old view.
  const shownFor = useRef(threadId);
  useEffect(() => {
    if (shownFor.current !== threadId) setOpen(false);
    shownFor.current = threadId;
  }, [threadId]);
  // A popover: Escape closes it (focus back on its button), as does a press anywhere outside it.
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    const onPointer = (event: PointerEvent) => {
      if (event.target instanceof Node && root.current?.contains(event.target)) return;
      setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);
  return (
    <div className="inbox" ref={root}>
      <button
        ref={button}
        type="button"
        className={items.length > 0 ? "inbox-button attention" : "inbox-button"}
        data-testid="inbox-button"
        data-count={items.length}
        aria-expanded={open}
        aria-controls="approval-inbox"
        onClick={() => setOpen(!open)}
      >
        Approvals{items.length > 0 ? ` (${items.length})` : ""}
      </button>
      {open && (
        <section
          id="approval-inbox"
          className="panel inbox-panel"
          data-testid="approval-inbox"
          aria-label="Approvals inbox"
        >
          <h2>Waiting for a decision</h2>
          {items.length === 0 && <p className="muted">Nothing is waiting for you.</p>}
          <ul>
            {items.map((item) => (
              <InboxRow
                key={`${item.agentId}:${item.callId}`}
                item={item}
                onOpenThread={(threadId) => {
                  setOpen(false);
                  onOpenThread(threadId);
                }}
              />
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function InboxRow({ item, onOpenThread }: { item: InboxItem; onOpenThread: (threadId: string) => void }) {
  const { api, state, dispatch } = useStore();
  const decide = async (decision: Decision) => {
    await api.approvals.resolve(item.agentId, item.callId, { decision });
    dispatch({
      type: "inbox.loaded",
      approvals: (state.inbox ?? []).filter(
        (other) => !(other.agentId === item.agentId && other.callId === item.callId),
      ),
    });
  };
  return (
    <li
      className="inbox-item"
      data-testid="inbox-item"
      data-thread-id={item.threadId}
      data-call-id={item.callId}
    >
      <div>
        <button
          type="button"
          className="link"
          data-testid="inbox-open-thread"
          onClick={() => onOpenThread(item.threadId)}
        >
          {item.threadTitle}
        </button>
        <span className="muted small">
          {" "}
          · {item.agentName} · {formatAgo(item.requestedAt)}
        </span>
      </div>
      <code className="small">
        {item.toolName} {clip(item.arguments, 120).text}
      </code>
      <DecisionButtons decide={decide} testIds={{ approve: "inbox-approve", deny: "inbox-deny" }} />
    </li>
  );
}
