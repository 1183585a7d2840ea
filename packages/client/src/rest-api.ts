import {
  type Agent,
  type ApiKey,
  ApiKeyList,
  ApprovalBody,
  ApprovalInbox,
  ApprovalInboxQuery,
  ApprovalResult,
  ApprovalRule,
  ApprovalRuleList,
  ApprovalRuleQuery,
  CompactBody,
  CompactionList,
  CompactionListQuery,
  CompactResult,
  ContextView,
  CreateApprovalRuleBody,
  CreateThreadBody,
  EventsPage,
  EventsQuery,
  ForkThreadBody,
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
  ThreadCost,
  ThreadDetail,
  ThreadList,
  type ThreadListItem,
  ThreadListQuery,
  ThreadSnapshot,
} from "@longrun/protocol";
import type { z } from "zod";
import { type HttpOptions, type QueryValue, type RequestOptions, requestJson } from "./http.ts";

/** One operation of the API as the SDK calls it: the protocol schemas of its request and answer. */
export interface RestEndpoint {
  method: "GET" | "POST" | "DELETE";
  /** OpenAPI path template: `{name}` segments are filled from the call's params. */
  path: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The schema of the documented 2xx answer. */
  response: z.ZodType;
  /** A POST that is safe to send twice, so retried like GET and DELETE. */
  idempotent?: boolean;
}

/**
 * Every endpoint the SDK uses, keyed by the server's operationId. A test checks each entry against the
 * server's OpenAPI document (same method, path, and the very same protocol schemas).
 */
export const restEndpoints = {
  createThread: { method: "POST", path: "/v1/threads", body: CreateThreadBody, response: ThreadDetail },
  listThreads: { method: "GET", path: "/v1/threads", query: ThreadListQuery, response: ThreadList },
  forkThread: { method: "POST", path: "/v1/threads/{id}/fork", body: ForkThreadBody, response: ThreadDetail },
  rewindThread: {
    method: "POST",
    path: "/v1/threads/{id}/rewind",
    body: ForkThreadBody,
    response: ThreadDetail,
  },
  getThread: { method: "GET", path: "/v1/threads/{id}", response: ThreadDetail },
  getThreadSnapshot: { method: "GET", path: "/v1/threads/{id}/snapshot", response: ThreadSnapshot },
  getThreadCost: { method: "GET", path: "/v1/threads/{id}/cost", response: ThreadCost },
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
  getRun: { method: "GET", path: "/v1/runs/{id}", response: RunResult },
  // Cancelling twice changes nothing (a finished run is returned as it is): safe to retry.
  cancelRun: { method: "POST", path: "/v1/runs/{id}/cancel", response: RunResult, idempotent: true },
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
  listApprovalRules: {
    method: "GET",
    path: "/v1/approval-rules",
    query: ApprovalRuleQuery,
    response: ApprovalRuleList,
  },
  createApprovalRule: {
    method: "POST",
    path: "/v1/approval-rules",
    body: CreateApprovalRuleBody,
    response: ApprovalRule,
  },
  revokeApprovalRule: { method: "DELETE", path: "/v1/approval-rules/{id}", response: ApprovalRule },
  listAgentCompactions: {
    method: "GET",
    path: "/v1/agents/{id}/compactions",
    query: CompactionListQuery,
    response: CompactionList,
  },
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
    create(body: z.input<typeof CreateThreadBody>, options?: RequestOptions): Promise<ThreadDetail>;
    /** The tenant's threads, newest first (default 100, at most 1000). */
    list(query?: z.input<typeof ThreadListQuery>, options?: RequestOptions): Promise<ThreadListItem[]>;
    get(threadId: string, options?: RequestOptions): Promise<ThreadDetail>;
    /** The thread at its head seq (detail, per-agent activity, undecided approvals): apply events after it. */
    snapshot(threadId: string, options?: RequestOptions): Promise<ThreadSnapshot>;
    /** What the thread's model calls cost so far, beside the plain way of compacting. */
    cost(threadId: string, options?: RequestOptions): Promise<ThreadCost>;
    sendMessage(
      threadId: string,
      body: z.input<typeof PostMessageBody>,
      options?: RequestOptions,
    ): Promise<PostMessageResult>;
    /** A new thread continuing this one from a message or compaction of its root agent (source unchanged). */
    fork(
      threadId: string,
      body: z.input<typeof ForkThreadBody>,
      options?: RequestOptions,
    ): Promise<ThreadDetail>;
    /** A fork this thread then points to: messages posted to it (without agentId) continue there. */
    rewind(
      threadId: string,
      body: z.input<typeof ForkThreadBody>,
      options?: RequestOptions,
    ): Promise<ThreadDetail>;
    /** One page of events after `since`; `eventsPage` also says where the next page starts. */
    events(
      threadId: string,
      query?: z.input<typeof EventsQuery>,
      options?: RequestOptions,
    ): Promise<LongrunEvent[]>;
    eventsPage(
      threadId: string,
      query?: z.input<typeof EventsQuery>,
      options?: RequestOptions,
    ): Promise<EventsPage>;
  };
  runs: {
    get(runId: string, options?: RequestOptions): Promise<Run>;
    /** Cancels a run from any server instance; a finished run is returned as it is. */
    cancel(runId: string, options?: RequestOptions): Promise<Run>;
  };
  approvals: {
    /** Decides one of an agent's parked calls (call ids are unique per agent only). */
    resolve(
      agentId: string,
      callId: string,
      body: z.input<typeof ApprovalBody>,
      options?: RequestOptions,
    ): Promise<ApprovalResult>;
    /** Undecided approvals across the tenant's threads (the inbox), oldest first. */
    pending(
      query?: z.input<typeof ApprovalInboxQuery>,
      options?: RequestOptions,
    ): Promise<ApprovalInbox["approvals"]>;
    /** Live "always approve" rules of the tenant (with threadId: those that apply to that thread). */
    rules(query?: z.input<typeof ApprovalRuleQuery>, options?: RequestOptions): Promise<ApprovalRule[]>;
    createRule(body: z.input<typeof CreateApprovalRuleBody>, options?: RequestOptions): Promise<ApprovalRule>;
    /** Revokes a rule: calls it would have approved are asked about again. */
    revokeRule(ruleId: string, options?: RequestOptions): Promise<ApprovalRule>;
  };
  agents: {
    compact(
      agentId: string,
      body?: z.input<typeof CompactBody>,
      options?: RequestOptions,
    ): Promise<CompactResult>;
    messages(
      agentId: string,
      query?: z.input<typeof MessagesQuery>,
      options?: RequestOptions,
    ): Promise<MessagesPage>;
    context(agentId: string, options?: RequestOptions): Promise<ContextView>;
    /**
     * Every compaction of the agent, oldest first, with summary text and ledger; with `offset`, only
     * the ones after the first `offset` (a client holding those reads what is new).
     */
    compactions(
      agentId: string,
      query?: z.input<typeof CompactionListQuery>,
      options?: RequestOptions,
    ): Promise<CompactionList["compactions"]>;
    spawn(
      agentId: string,
      body: z.input<typeof SpawnBody>,
      options?: RequestOptions,
    ): Promise<{ agents: Agent[]; runId: string }>;
    history(
      agentId: string,
      query?: z.input<typeof HistoryQuery>,
      options?: RequestOptions,
    ): Promise<HistoryView>;
  };
  models: { list(options?: RequestOptions): Promise<ModelInfo[]> };
  ops: { get(options?: RequestOptions): Promise<OpsView> };
  /** Bearer-token keys (admin tokens only): every tenant's, and revocation, effective on every server at once. */
  tokens: {
    list(options?: RequestOptions): Promise<ApiKey[]>;
    revoke(keyId: string, options?: RequestOptions): Promise<ApiKey>;
  };
  health(options?: RequestOptions): Promise<Health>;
}

/** Builds the REST methods over one base URL and token. */
export function createRestApi(http: HttpOptions): RestApi {
  const call = <Id extends OperationId>(
    id: Id,
    input: Call<Id>,
    options: RequestOptions | undefined,
  ): Promise<OutputOf<Id>> => {
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
        idempotent: endpoint.method !== "POST" || endpoint.idempotent === true,
        ...(query ? { query: query as Record<string, QueryValue> } : {}),
        ...(body !== undefined ? { body } : {}),
      },
      endpoint.response as z.ZodType<OutputOf<Id>>,
      options,
    );
  };
  const none = {} as Record<string, never>;

  return {
    threads: {
      create: (body, options) => call("createThread", { body }, options),
      list: async (query, options) => (await call("listThreads", { query }, options)).threads,
      get: (threadId, options) => call("getThread", { params: { id: threadId } }, options),
      snapshot: (threadId, options) => call("getThreadSnapshot", { params: { id: threadId } }, options),
      cost: (threadId, options) => call("getThreadCost", { params: { id: threadId } }, options),
      sendMessage: (threadId, body, options) =>
        call("postMessage", { params: { id: threadId }, body }, options),
      fork: (threadId, body, options) => call("forkThread", { params: { id: threadId }, body }, options),
      rewind: (threadId, body, options) => call("rewindThread", { params: { id: threadId }, body }, options),
      events: async (threadId, query, options) =>
        (await call("listThreadEvents", { params: { id: threadId }, query }, options)).events,
      eventsPage: (threadId, query, options) =>
        call("listThreadEvents", { params: { id: threadId }, query }, options),
    },
    runs: {
      get: async (runId, options) => (await call("getRun", { params: { id: runId } }, options)).run,
      cancel: async (runId, options) => (await call("cancelRun", { params: { id: runId } }, options)).run,
    },
    approvals: {
      resolve: (agentId, callId, body, options) =>
        call("resolveApproval", { params: { id: agentId, callId }, body }, options),
      pending: async (query, options) => (await call("listPendingApprovals", { query }, options)).approvals,
      rules: async (query, options) => (await call("listApprovalRules", { query }, options)).rules,
      createRule: (body, options) => call("createApprovalRule", { body }, options),
      revokeRule: (ruleId, options) => call("revokeApprovalRule", { params: { id: ruleId } }, options),
    },
    agents: {
      compact: (agentId, body = {}, options) =>
        call("compactAgent", { params: { id: agentId }, body }, options),
      messages: (agentId, query, options) =>
        call("listAgentMessages", { params: { id: agentId }, query }, options),
      context: (agentId, options) => call("getAgentContext", { params: { id: agentId } }, options),
      compactions: async (agentId, query, options) =>
        (await call("listAgentCompactions", { params: { id: agentId }, query }, options)).compactions,
      spawn: (agentId, body, options) => call("spawnAgents", { params: { id: agentId }, body }, options),
      history: (agentId, query, options) =>
        call("getAgentHistory", { params: { id: agentId }, query }, options),
    },
    models: { list: async (options) => (await call("listModels", none, options)).data },
    ops: { get: (options) => call("getOps", none, options) },
    tokens: {
      list: async (options) => (await call("listTokens", none, options)).tokens,
      revoke: async (keyId, options) => (await call("revokeToken", { params: { id: keyId } }, options)).token,
    },
    health: (options) => call("getHealth", none, options),
  };
}
