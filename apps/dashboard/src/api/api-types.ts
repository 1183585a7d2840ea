import type {
  AgentInherit,
  ContextView,
  CreateThreadBody,
  HistoryView,
  LongrunEvent,
  OpsView,
  PostMessageResult,
  Run,
  StoredMessage,
  Thread,
  ThreadDetail,
} from "@longrun/protocol";

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
    list(): Promise<Thread[]>;
    get(threadId: string): Promise<ThreadDetail>;
    sendMessage(threadId: string, body: { content: string; agentId?: string }): Promise<PostMessageResult>;
  };
  runs: { cancel(runId: string): Promise<Run> };
  approvals: {
    resolve(
      agentId: string,
      callId: string,
      body: { decision: "approve" | "deny"; reason?: string },
    ): Promise<unknown>;
  };
  agents: {
    compact(agentId: string): Promise<unknown>;
    messages(
      agentId: string,
      options?: { afterSeq?: number; limit?: number },
    ): Promise<{ messages: StoredMessage[]; nextAfterSeq: number | null }>;
    context(agentId: string): Promise<ContextView>;
    spawn(
      agentId: string,
      body: { agents: { name: string; brief: string; inherit: AgentInherit }[] },
    ): Promise<unknown>;
    history(agentId: string): Promise<HistoryView>;
  };
  ops: { get(): Promise<OpsView> };
  subscribe(options: SubscribeOptions, handlers: SubscribeHandlers): Subscription;
}
