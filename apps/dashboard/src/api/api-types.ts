import type {
  AgentInherit,
  ApprovalInbox,
  ApprovalRule,
  ApprovalRuleScope,
  CompactionList,
  ContextView,
  CreateThreadBody,
  EventsPage,
  HistoryView,
  LongrunEvent,
  ModelInfo,
  OpsView,
  PostMessageResult,
  Run,
  StoredMessage,
  ThreadCost,
  ThreadDetail,
  ThreadListItem,
  ThreadSnapshot,
} from "@longrun/protocol";

/** Where a fork or rewind starts (exactly one of the two), and the new thread's title. */
export type ForkBody = ({ atMessageId: string } | { atCompactionId: string }) & { title?: string };

/** What the SDK reports about its WebSocket: anything but "open" shows the banner. */
export type SubscriptionStatus = "connecting" | "open" | "reconnecting" | "closed";

/** The SDK's resync notice: the log no longer holds `requestedSince`; state must be reloaded. */
export interface ResyncNotice {
  threadId: string;
  requestedSince?: number;
  oldestSeq?: number;
}

export interface SubscribeOptions {
  threadId: string;
  since?: number;
  types?: string[];
  agentId?: string;
}

export interface SubscribeHandlers {
  onEvent: (event: LongrunEvent) => void;
  onStatus?: (status: SubscriptionStatus) => void;
  onResync?: (notice: ResyncNotice) => void;
  onError?: (error: Error) => void;
}

export interface Subscription {
  close(): void;
}

/**
 * The slice of `@longrun/client` the dashboard uses. Only create-api.ts touches the SDK itself,
 * so a change in its surface is reconciled in one place.
 */
export interface LongrunApi {
  threads: {
    create(body: CreateThreadBody): Promise<ThreadDetail>;
    list(): Promise<ThreadListItem[]>;
    get(threadId: string): Promise<ThreadDetail>;
    snapshot(threadId: string): Promise<ThreadSnapshot>;
    /** What the thread's model calls cost so far, beside the plain way of compacting. */
    cost(threadId: string): Promise<ThreadCost>;
    eventsPage(
      threadId: string,
      query: { since: number; limit?: number; types?: string },
    ): Promise<EventsPage>;
    sendMessage(threadId: string, body: { content: string; agentId?: string }): Promise<PostMessageResult>;
    /** A new thread continuing this one from a message or compaction of its root agent. */
    fork(threadId: string, body: ForkBody): Promise<ThreadDetail>;
    /** The same fork, and this thread then points to it (its next message continues there). */
    rewind(threadId: string, body: ForkBody): Promise<ThreadDetail>;
  };
  runs: { cancel(runId: string): Promise<Run> };
  approvals: {
    resolve(
      agentId: string,
      callId: string,
      body: {
        decision: "approve" | "deny";
        reason?: string;
        /** With approve: also approve later matching calls, in this thread or the whole tenant. */
        rule?: { scope: ApprovalRuleScope; pattern?: string };
      },
    ): Promise<unknown>;
    pending(): Promise<ApprovalInbox["approvals"]>;
    /** Live "always approve" rules (with threadId: those that apply to that thread). */
    rules(query?: { threadId?: string }): Promise<ApprovalRule[]>;
  };
  agents: {
    compact(agentId: string): Promise<{ runId: string; queued: boolean }>;
    messages(
      agentId: string,
      options?: { afterSeq?: number; limit?: number },
    ): Promise<{ messages: StoredMessage[]; nextAfterSeq: number | null }>;
    context(agentId: string): Promise<ContextView>;
    /** With `offset`, only the compactions after the first `offset` (oldest first; the list only grows). */
    compactions(agentId: string, query?: { offset?: number }): Promise<CompactionList["compactions"]>;
    spawn(
      agentId: string,
      body: { agents: { name: string; brief: string; inherit: AgentInherit }[] },
    ): Promise<unknown>;
    history(agentId: string, options?: { offset?: number; limit?: number }): Promise<HistoryView>;
  };
  ops: { get(): Promise<OpsView> };
  models: { list(): Promise<ModelInfo[]> };
  subscribe(options: SubscribeOptions, handlers: SubscribeHandlers): Subscription;
}
