import {
  Agent,
  type ApprovalBody,
  type CompactBody,
  ContextView,
  type CreateThreadBody,
  HistoryView,
  LongrunEvent,
  MessagesPage,
  OpsView,
  type PostMessageBody,
  PostMessageResult,
  Run,
  type SpawnBody,
  type Thread,
  ThreadDetail,
  ThreadList,
} from "@longrun/protocol";
import { type HttpOptions, type Parser, requestJson } from "./http.ts";

/** What a caller may pass for a body schema: its input type, so fields with defaults stay optional. */
type Input<Schema extends { _zod: { input: unknown } }> = Schema["_zod"]["input"];
type MessagesPageValue = ReturnType<typeof MessagesPage.parse>;

/** The REST half of the SDK, one method per endpoint of DESIGN §10 plus the extras. */
export interface RestApi {
  threads: {
    create(body: Input<typeof CreateThreadBody>): Promise<ThreadDetail>;
    list(): Promise<Thread[]>;
    get(threadId: string): Promise<ThreadDetail>;
    sendMessage(threadId: string, body: Input<typeof PostMessageBody>): Promise<PostMessageResult>;
    events(threadId: string, query?: { since?: number; limit?: number }): Promise<LongrunEvent[]>;
  };
  runs: { cancel(runId: string): Promise<Run> };
  approvals: { resolve(callId: string, body: Input<typeof ApprovalBody>): Promise<{ ok: true }> };
  agents: {
    compact(agentId: string, body?: Input<typeof CompactBody>): Promise<{ runId: string }>;
    messages(agentId: string, query?: { afterSeq?: number; limit?: number }): Promise<MessagesPageValue>;
    context(agentId: string): Promise<ContextView>;
    /** The spawned agents; `runId` of the spawn run when the server reports it. */
    spawn(agentId: string, body: Input<typeof SpawnBody>): Promise<{ agents: Agent[]; runId?: string }>;
    history(agentId: string): Promise<HistoryView>;
  };
  ops: { get(): Promise<OpsView> };
  health(): Promise<{ ok: boolean }>;
}

/** Builds the REST methods over one base URL and token. */
export function createRestApi(http: HttpOptions): RestApi {
  const get = <Output>(path: string, parser: Parser<Output>, query?: Record<string, number | undefined>) =>
    requestJson(http, { method: "GET", path, ...(query ? { query } : {}) }, parser);
  const post = <Output>(path: string, body: unknown, parser: Parser<Output>) =>
    requestJson(http, { method: "POST", path, body }, parser);
  const segment = encodeURIComponent;

  return {
    threads: {
      create: (body) => post("/v1/threads", body, ThreadDetail),
      list: async () => (await get("/v1/threads", ThreadList)).threads,
      get: (threadId) => get(`/v1/threads/${segment(threadId)}`, ThreadDetail),
      sendMessage: (threadId, body) =>
        post(`/v1/threads/${segment(threadId)}/messages`, body, PostMessageResult),
      events: (threadId, query = {}) =>
        get(`/v1/threads/${segment(threadId)}/events`, eventListParser, {
          since: query.since,
          limit: query.limit,
        }),
    },
    runs: { cancel: (runId) => post(`/v1/runs/${segment(runId)}/cancel`, {}, runParser) },
    approvals: { resolve: (callId, body) => post(`/v1/approvals/${segment(callId)}`, body, okParser) },
    agents: {
      compact: (agentId, body = {}) => post(`/v1/agents/${segment(agentId)}/compact`, body, runIdParser),
      messages: (agentId, query = {}) =>
        get(`/v1/agents/${segment(agentId)}/messages`, MessagesPage, {
          afterSeq: query.afterSeq,
          limit: query.limit,
        }),
      context: (agentId) => get(`/v1/agents/${segment(agentId)}/context`, ContextView),
      spawn: (agentId, body) => post(`/v1/agents/${segment(agentId)}/spawn`, body, agentsParser),
      history: (agentId) => get(`/v1/agents/${segment(agentId)}/history`, HistoryView),
    },
    ops: { get: () => get("/v1/ops", OpsView) },
    health: () => get("/healthz", healthParser),
  };
}

const EventArray = LongrunEvent.array();
const AgentArray = Agent.array();

function objectOf(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Error("expected an object");
  return value as Record<string, unknown>;
}

/** `{events: [...]}`; a bare array is accepted too. */
const eventListParser: Parser<LongrunEvent[]> = {
  parse: (value) => EventArray.parse(Array.isArray(value) ? value : objectOf(value).events),
};

/** `{run}` (RunResult); a bare Run is accepted too. */
const runParser: Parser<Run> = {
  parse: (value) => {
    const body = objectOf(value);
    return Run.parse("run" in body ? body.run : body);
  },
};

const okParser: Parser<{ ok: true }> = {
  parse: (value) => {
    if (objectOf(value).ok !== true) throw new Error("expected {ok: true}");
    return { ok: true };
  },
};

const runIdParser: Parser<{ runId: string }> = {
  parse: (value) => {
    const runId = objectOf(value).runId;
    if (typeof runId !== "string") throw new Error("expected {runId}");
    return { runId };
  },
};

const agentsParser: Parser<{ agents: Agent[]; runId?: string }> = {
  parse: (value) => {
    const body = objectOf(value);
    const agents = AgentArray.parse(body.agents);
    return typeof body.runId === "string" ? { agents, runId: body.runId } : { agents };
  },
};

const healthParser: Parser<{ ok: boolean }> = {
  parse: (value) => {
    const ok = objectOf(value).ok;
    if (typeof ok !== "boolean") throw new Error("expected {ok: boolean}");
    return { ok };
  },
};
