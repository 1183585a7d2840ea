import {
  detectClientCompaction,
  parseChatRequest,
  parseMessagesRequest,
  parseResponsesRequest,
} from "@longrun/openai-compat";
import type { LongrunEvent, StoredMessage, Thread } from "@longrun/protocol";
import type { SimLogEntry } from "@longrun/sim-model";
import { allEvents } from "../../e2e/support/embedded-instance.ts";
import type { LongrunUnderTest } from "./longrun-under-test.ts";
import type { RecordedRequest } from "./recording-proxy.ts";

/** The closing figures of one client's run (issue 15's closing note). */
export interface ClientReport {
  client: string;
  threadId: string;
  /** Tool-call steps the client took (assistant answers with tool calls in the thread's facts). */
  steps: number;
  clientRequests: number;
  upstreamRequests: number;
  upstreamSummaries: number;
  longrunCompactions: number;
  clientCompactions: number;
  peakPromptTokens: number;
  window: number;
  wallMs: number;
}

/** True when a recorded request is the client asking for its own compaction. */
export function isClientCompaction(request: RecordedRequest): boolean {
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const path = request.path.split("?")[0] ?? request.path;
  try {
    if (path.endsWith("/messages")) {
      return detectClientCompaction(parseMessagesRequest(request.body as never).turn, header) !== null;
    }
    if (path.endsWith("/responses")) {
      return detectClientCompaction(parseResponsesRequest(request.body as never), header) !== null;
    }
    if (path.endsWith("/chat/completions")) {
      return detectClientCompaction(parseChatRequest(request.body as never), header) !== null;
    }
  } catch {
    return false;
  }
  return false;
}

/** Sim log entries of requests made for one model string (each client gets its own). */
export function upstreamOf(env: LongrunUnderTest, model: string): SimLogEntry[] {
  return env.sim.log.entries.filter((entry) => entry.model === model);
}

/** Facts and events of the gateway thread a client's conversation landed in. */
export async function threadOf(env: LongrunUnderTest, predicate: (thread: Thread) => boolean) {
  const threads = await env.longrun.client.threads.list();
  const thread = threads.find((candidate) => candidate.modelProfile.gateway && predicate(candidate));
  if (!thread)
    throw new Error(`no gateway thread matches; threads: ${threads.map((t) => t.title).join(" | ")}`);
  const detail = await env.longrun.client.threads.get(thread.id);
  const root = detail.agents.find((agent) => !agent.parentAgentId);
  const facts: StoredMessage[] = [];
  for (let afterSeq = -1; root; ) {
    const page = await env.longrun.client.agents.messages(root.id, { afterSeq, limit: 500 });
    facts.push(...page.messages);
    if (page.nextAfterSeq === null) break;
    afterSeq = page.nextAfterSeq;
  }
  const events: LongrunEvent[] = await allEvents(env.longrun.client, thread.id);
  return { thread, facts, events };
}

/**
 * The gateway threads whose facts mention `text` (a sandbox's work folder): the conversation of a
 * client that sends no session id, and any branch of it.
 */
export async function threadsMentioning(env: LongrunUnderTest, text: string) {
  const found: Awaited<ReturnType<typeof threadOf>>[] = [];
  for (const thread of await env.longrun.client.threads.list()) {
    if (!thread.modelProfile.gateway) continue;
    const detail = await threadOf(env, (candidate) => candidate.id === thread.id);
    if (JSON.stringify(detail.facts).includes(text)) found.push(detail);
  }
  return found;
}

/** The report of one client's run, from its gateway thread, the upstream calls and its own requests. */
export function clientReport(input: {
  client: string;
  thread: Awaited<ReturnType<typeof threadOf>>;
  upstream: SimLogEntry[];
  clientRequests: RecordedRequest[];
  window: number;
  wallMs: number;
}): ClientReport & { agentCalls: SimLogEntry[] } {
  const { thread, upstream, clientRequests } = input;
  const agentCalls = upstream.filter((entry) => !entry.summary);
  const report: ClientReport = {
    client: input.client,
    threadId: thread.thread.id,
    steps: thread.facts.filter((fact) => fact.role === "assistant" && (fact.toolCalls?.length ?? 0) > 0)
      .length,
    clientRequests: clientRequests.length,
    upstreamRequests: upstream.length,
    upstreamSummaries: upstream.length - agentCalls.length,
    longrunCompactions: thread.events.filter((event) => event.type === "compaction.completed").length,
    clientCompactions: clientRequests.filter(isClientCompaction).length,
    peakPromptTokens: Math.max(...agentCalls.map((entry) => entry.promptTokens ?? 0)),
    window: input.window,
    wallMs: input.wallMs,
  };
  console.log(`[gateway report] ${JSON.stringify(report)}`);
  return { ...report, agentCalls };
}

/**
 * One session of a client that sends no session id, found by its sandbox's working folder: the threads
 * that mention it (one, when its rebuilt histories continued it), the requests it sent for `model`, what
 * went upstream for it, and the report of its first thread.
 */
export async function sessionByFolder(
  env: LongrunUnderTest,
  input: { client: string; model: string; work: string; window: number; wallMs: number },
) {
  const threads = await threadsMentioning(env, input.work);
  const clientRequests = env.requests.filter(
    (request) => (request.body as { model?: string })?.model === input.model,
  );
  const upstream = upstreamOf(env, input.model);
  const [first] = threads;
  if (!first) throw new Error(`no gateway thread mentions ${input.work}`);
  const report = clientReport({
    client: input.client,
    thread: first,
    upstream,
    clientRequests,
    window: input.window,
    wallMs: input.wallMs,
  });
  return { threads, clientRequests, upstream, report };
}
