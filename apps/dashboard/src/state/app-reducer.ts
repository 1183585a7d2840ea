import type {
  ApprovalInbox,
  LongrunEvent,
  StoredMessage,
  ThreadDetail,
  ThreadListItem,
  ThreadSnapshot,
} from "@longrun/protocol";
import type { SubscriptionStatus } from "../api/api-types.ts";
import { applyEvents } from "./apply-events.ts";
import {
  applyMessages,
  applySnapshot,
  applyThreadDetail,
  clearStreaming,
  markHistoryLoaded,
} from "./apply-rest.ts";
import { emptyThreadState, type ThreadState } from "./thread-state.ts";

export type ConnectionState = SubscriptionStatus | "idle";

export type InboxItem = ApprovalInbox["approvals"][number];

export interface AppState {
  threads: ThreadListItem[];
  /** Undecided approvals across threads (polled); null until the first read. */
  inbox: InboxItem[] | null;
  /**
   * Counts the times the live connection came (back) up: a failure shown before a reconnect is about a
   * connection that is gone, so components drop errors stamped with an older epoch.
   */
  connectionEpoch: number;
  threadsLoaded: boolean;
  threadsError: string | null;
  connection: ConnectionState;
  /** Times the server said our position was older than its log and state was reloaded. */
  resyncs: number;
  thread: ThreadState | null;
}

export type AppAction =
  | { type: "threads.loaded"; threads: ThreadListItem[] }
  | { type: "inbox.loaded"; approvals: InboxItem[] }
  | { type: "thread.snapshot"; snapshot: ThreadSnapshot }
  | { type: "thread.history-loaded"; threadId: string }
  | { type: "threads.failed"; error: string }
  | { type: "thread.opened"; threadId: string | null }
  | { type: "thread.events"; threadId: string; events: LongrunEvent[] }
  | { type: "thread.detail"; detail: ThreadDetail }
  | {
      type: "thread.messages";
      threadId: string;
      agentId: string;
      messages: StoredMessage[];
      /** Set on a read's last merge: every message above this seq has now been read. */
      readFrom?: number;
    }
  | { type: "thread.resynced"; threadId: string }
  | { type: "connection"; status: ConnectionState };

export const initialAppState: AppState = {
  threads: [],
  inbox: null,
  connectionEpoch: 0,
  threadsLoaded: false,
  threadsError: null,
  connection: "idle",
  resyncs: 0,
  thread: null,
};

/** The dashboard's one reducer; every thread-level merge is delegated to the pure functions in apply-events. */
export function appReducer(state: AppState, action: AppAction): AppState {
  switch (action.type) {
    case "threads.loaded":
      return { ...state, threads: action.threads, threadsLoaded: true, threadsError: null };
    case "inbox.loaded":
      return { ...state, inbox: action.approvals };
    case "thread.snapshot":
      return withThread(state, action.snapshot.thread.id, (thread) => applySnapshot(thread, action.snapshot));
    case "thread.history-loaded":
      return withThread(state, action.threadId, markHistoryLoaded);
    case "threads.failed":
      return { ...state, threadsError: action.error, threadsLoaded: true };
    case "thread.opened":
      if (state.thread?.threadId === action.threadId) return state;
      return { ...state, thread: action.threadId ? emptyThreadState(action.threadId) : null };
    case "thread.events":
      return withThread(state, action.threadId, (thread) => applyEvents(thread, action.events));
    case "thread.detail":
      return withThread(state, action.detail.id, (thread) => applyThreadDetail(thread, action.detail));
    case "thread.messages":
      return withThread(state, action.threadId, (thread) =>
        applyMessages(thread, action.agentId, action.messages, action.readFrom),
      );
    case "thread.resynced":
      return { ...state, resyncs: state.resyncs + 1 };
    case "connection": {
      // Deltas in flight when the socket drops are gone; a half sentence would never be finished.
      const thread =
        action.status === "reconnecting" && state.thread ? clearStreaming(state.thread) : state.thread;
      const reopened = action.status === "open" && state.connection !== "open";
      const epoch = reopened ? state.connectionEpoch + 1 : state.connectionEpoch;
      // A list read that failed while the server was away is not news once it answers again: the banner
      // would say "Cannot reach the server" beside an "open" pill until the next read.
      const threadsError = reopened ? null : state.threadsError;
      return { ...state, connection: action.status, thread, connectionEpoch: epoch, threadsError };
    }
    default: {
      const exhaustive: never = action;
      return exhaustive;
    }
  }
}

function withThread(
  state: AppState,
  threadId: string,
  update: (thread: ThreadState) => ThreadState,
): AppState {
  if (!state.thread || state.thread.threadId !== threadId) return state;
  const thread = update(state.thread);
  return thread === state.thread ? state : { ...state, thread };
}
