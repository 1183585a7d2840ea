import {
  type Agent,
  type ApiKey,
  ApiKeyList,
  ApprovalBody,
  ApprovalInbox,
  ApprovalInboxQuery,
  ApprovalResult,
  CompactBody,
  CompactionList,
  CompactResult,
  ContextView,
  CreateThreadBody,
  EventsPage,
  EventsQuery,
  Health,
  HistoryQuery,
  HistoryView,
  type LongrunEvent,
  MessagesPage,
  MessagesQuery,
  type ModelInfo,
  ModelList,
  OpsView,
  PostMessageBody,
  PostMessageResult,
  RevokedApiKey,
  type Run,
  RunResult,
  SpawnBody,
  SpawnResult,
  ThreadDetail,
  ThreadList,
  type ThreadListItem,
  ThreadListQuery,
  ThreadSnapshot,
} from "@longrun/protocol";
import type { z } from "zod";
import { type HttpOptions, type QueryValue, requestJson } from "./http.ts";

/** One operation of the API as the SDK calls it: the protocol schemas of its request and answer. */
export interface RestEndpoint {
  method: "GET" | "POST" | "DELETE";
  /** OpenAPI path template: `{name}` segments are filled from the call's params. */
  path: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The schema of the documented 2xx answer. */
  response: z.ZodType;
}

/**
 * Every endpoint the SDK uses, keyed by the server's operationId. A test checks each entry against the
 * server's OpenAPI document (same method, path, and the very same protocol schemas).
 */
export const restEndpoints = {
  createThread: { method: "POST", path: "/v1/threads", body: CreateThreadBody, response: ThreadDetail },
  listThreads: { method: "GET", path: "/v1/threads", query: ThreadListQuery, response: ThreadList },
  getThread: { method: "GET", path: "/v1/threads/{id}", response: ThreadDetail },
  getThreadSnapshot: { method: "GET", path: "/v1/threads/{id}/snapshot", response: ThreadSnapshot },
  postMessage: {
    method: "POST",
    path: "/v1/threads/{id}/messages",
    body: PostMessageBody,
    response: PostMessageResult,
  },
  listThreadEvents: {
    method: "GET",
    path: "/v1/threads/{id}/events",
    query: EventsQuery,
    response: EventsPage,
  },
  cancelRun: { method: "POST", path: "/v1/runs/{id}/cancel", response: RunResult },
  resolveApproval: {
    method: "POST",
    path: "/v1/agents/{id}/approvals/{callId}",
    body: ApprovalBody,
    response: ApprovalResult,
  },
  listPendingApprovals: {
    method: "GET",
    path: "/v1/approvals",
    query: ApprovalInboxQuery,
    response: ApprovalInbox,
  },
  listAgentCompactions: { method: "GET", path: "/v1/agents/{id}/compactions", response: CompactionList },
  compactAgent: {
    method: "POST",
    path: "/v1/agents/{id}/compact",
    body: CompactBody,
    response: CompactResult,
  },
  listAgentMessages: {
    method: "GET",
    path: "/v1/agents/{id}/messages",
    query: MessagesQuery,
    response: MessagesPage,
  },
  getAgentContext: { method: "GET", path: "/v1/agents/{id}/context", response: ContextView },
  spawnAgents: { method: "POST", path: "/v1/agents/{id}/spawn", body: SpawnBody, response: SpawnResult },
  getAgentHistory: {
    method: "GET",
    path: "/v1/agents/{id}/history",
    query: HistoryQuery,
    response: HistoryView,
  },
  getOps: { method: "GET", path: "/v1/ops", response: OpsView },
  listTokens: { method: "GET", path: "/v1/tokens", response: ApiKeyList },
  revokeToken: { method: "DELETE", path: "/v1/tokens/{id}", response: RevokedApiKey },
  listModels: { method: "GET", path: "/v1/models", response: ModelList },
  getHealth: { method: "GET", path: "/healthz", response: Health },
} as const satisfies Record<string, RestEndpoint>;

type Endpoints = typeof restEndpoints;
type OperationId = keyof Endpoints;
type InputOf<Schema> = Schema extends z.ZodType ? z.input<Schema> : never;
type OutputOf<Id extends OperationId> = z.output<Endpoints[Id]["response"]>;
type Call<Id extends OperationId> = {
  params?: Record<string, string>;
} & (Endpoints[Id] extends { query: infer Query } ? { query?: InputOf<Query> } : unknown) &
  (Endpoints[Id] extends { body: infer Body } ? { body?: InputOf<Body> } : unknown);

/** The REST half of the SDK, one method per operation of the API. */
export interface RestApi {
  threads: {
    create(body: z.input<typeof CreateThreadBody>): Promise<ThreadDetail>;
    /** The tenant's threads, newest first (default 100, at most 1000). */
    list(query?: z.input<typeof ThreadListQuery>): Promise<ThreadListItem[]>;
    get(threadId: string): Promise<ThreadDetail>;
    /** The thread at its head seq (detail, per-agent activity, undecided approvals): apply events after it. */
    snapshot(threadId: string): Promise<ThreadSnapshot>;
    sendMessage(threadId: string, body: z.input<typeof PostMessageBody>): Promise<PostMessageResult>;
    /** One page of events after `since`; `eventsPage` also says where the next page starts. */
    events(threadId: string, query?: z.input<typeof EventsQuery>): Promise<LongrunEvent[]>;
    eventsPage(threadId: string, query?: z.input<typeof EventsQuery>): Promise<EventsPage>;
  };
  runs: { cancel(runId: string): Promise<Run> };
  approvals: {
    /** Decides one of an agent's parked calls (call ids are unique per agent only). */
    resolve(agentId: string, callId: string, body: z.input<typeof ApprovalBody>): Promise<ApprovalResult>;
    /** Undecided approvals across the tenant's threads (the inbox), oldest first. */
    pending(query?: z.input<typeof ApprovalInboxQuery>): Promise<ApprovalInbox["approvals"]>;
  };
  agents: {
    compact(agentId: string, body?: z.input<typeof CompactBody>): Promise<CompactResult>;
    messages(agentId: string, query?: z.input<typeof MessagesQuery>): Promise<MessagesPage>;
    context(agentId: string): Promise<ContextView>;
    /** Every compaction of the agent, oldest first, with summary text and ledger. */
    compactions(agentId: string): Promise<CompactionList["compactions"]>;
    spawn(agentId: string, body: z.input<typeof SpawnBody>): Promise<{ agents: Agent[]; runId: string }>;
    history(agentId: string, query?: z.input<typeof HistoryQuery>): Promise<HistoryView>;
  };
  models: { list(): Promise<ModelInfo[]> };
  ops: { get(): Promise<OpsView> };
  /** Bearer-token keys (admin tokens only): every tenant's, and revocation, effective on every server at once. */
  tokens: { list(): Promise<ApiKey[]>; revoke(keyId: string): Promise<ApiKey> };
  health(): Promise<Health>;
}

/** Builds the REST methods over one base URL and token. */
export function createRestApi(http: HttpOptions): RestApi {
  const call = <Id extends OperationId>(id: Id, input: Call<Id> = {} as Call<Id>): Promise<OutputOf<Id>> => {
    const endpoint: RestEndpoint = restEndpoints[id];
    const {
      params = {},
      query,
      body,
    } = input as { params?: Record<string, string>; query?: object; body?: unknown };
    const path = endpoint.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`${id}: missing path parameter ${name}`);
      return encodeURIComponent(value);
    });
    return requestJson(
      http,
      {
        method: endpoint.method,
        path,
        ...(query ? { query: query as Record<string, QueryValue> } : {}),
        ...(body !== undefined ? { body } : {}),
      },
      endpoint.response as z.ZodType<OutputOf<Id>>,
    );
  };

  return {
    threads: {
      create: (body) => call("createThread", { body }),
      list: async (query) => (await call("listThreads", { query })).threads,
      get: (threadId) => call("getThread", { params: { id: threadId } }),
      snapshot: (threadId) => call("getThreadSnapshot", { params: { id: threadId } }),
      sendMessage: (threadId, body) => call("postMessage", { params: { id: threadId }, body }),
      events: async (threadId, query) =>
        (await call("listThreadEvents", { params: { id: threadId }, query })).events,
      eventsPage: (threadId, query) => call("listThreadEvents", { params: { id: threadId }, query }),
    },
    runs: { cancel: async (runId) => (await call("cancelRun", { params: { id: runId } })).run },
    approvals: {
      resolve: (agentId, callId, body) => call("resolveApproval", { params: { id: agentId, callId }, body }),
      pending: async (query) => (await call("listPendingApprovals", { query })).approvals,
    },
    agents: {
      compact: (agentId, body = {}) => call("compactAgent", { params: { id: agentId }, body }),
      messages: (agentId, query) => call("listAgentMessages", { params: { id: agentId }, query }),
      context: (agentId) => call("getAgentContext", { params: { id: agentId } }),
      compactions: async (agentId) =>
        (await call("listAgentCompactions", { params: { id: agentId } })).compactions,
      spawn: (agentId, body) => call("spawnAgents", { params: { id: agentId }, body }),
      history: (agentId, query) => call("getAgentHistory", { params: { id: agentId }, query }),
    },
    models: { list: async () => (await call("listModels")).data },
    ops: { get: () => call("getOps") },
    tokens: {
      list: async () => (await call("listTokens")).tokens,
      revoke: async (keyId) => (await call("revokeToken", { params: { id: keyId } })).token,
    },
    health: () => call("getHealth"),
  };
}
