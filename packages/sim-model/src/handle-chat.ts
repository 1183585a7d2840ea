import { type AnswerMessage, completionBody, completionChunks, usageOf } from "./completion.ts";
import type { SimModelConfig } from "./config.ts";
import { createEncryptedReasoning, validateEncryptedReasoning } from "./encrypted-reasoning.ts";
import { errorBody, invalidRequest, isSimError, SIM_ERROR_CODES, type SimError } from "./errors.ts";
import { type FaultCounters, parseFaultHeaders, type SimFaultSpec } from "./faults.ts";
import { prefixHashes } from "./message-hash.ts";
import { parseModelName } from "./model-options.ts";
import { countLongTextsOffThread } from "./off-thread-count.ts";
import type { PrefixCache } from "./prefix-cache.ts";
import { blankLogEntry, type RequestLog, type SimApi, type SimLogEntry } from "./request-log.ts";
import { agentTurn } from "./scripts/agent-turn.ts";
import { buildSummary } from "./summary.ts";
import { continuationInstruction, isSummaryRequest, keptVerbatimCount } from "./summary-request.ts";
import { countMessage, countText, countTools, TOKEN_OVERHEAD } from "./tokens.ts";
import { validateShape } from "./validate-shape.ts";
import { validateToolAdjacency } from "./validate-tool-adjacency.ts";
import type { WireRequest } from "./wire.ts";

/** A request translated from another wire format: which one, and its body as received (for the log). */
export interface RequestOrigin {
  api: SimApi;
  body: unknown;
}

/** Everything a request handler reads or updates. */
export interface SimState {
  config: SimModelConfig;
  cache: PrefixCache;
  counters: FaultCounters;
  log: RequestLog;
  nextId: number;
}

/** A handler result, independent of the HTTP library. */
export type ChatResult =
  | { status: number; headers: Record<string, string>; json: unknown }
  | { status: 200; headers: Record<string, string>; chunks: unknown[] };

type LogDraft = Omit<SimLogEntry, "seq" | "at">;

function reasoningText(step: number, toolNames: string[]): string {
  const plan = toolNames.length ? toolNames.join(", ") : "writing the answer";
  return `Step ${step}: reviewing what I know, then ${plan}. `.repeat(3).trim();
}

function carriesProviderState(request: WireRequest): boolean {
  return request.messages.some(
    (message) => (message.reasoning_details?.length ?? 0) > 0 || !!message.reasoning_content,
  );
}

function statusFault(state: SimState, specs: Array<[SimFaultSpec, string]>): SimError | undefined {
  for (const [spec, key] of specs) {
    const fault = state.counters.statusFault(spec, key);
    if (fault) return fault;
  }
  return undefined;
}

/**
 * The summary a summarization request asks for, within its max_tokens. A continuation (an agent's own
 * request with the instruction appended) summarizes what comes before the messages it keeps verbatim.
 */
function summaryOf(request: WireRequest): string {
  const limit = request.max_completion_tokens ?? request.max_tokens;
  const maxTokens = typeof limit === "number" && limit > 0 ? limit : undefined;
  const instruction = continuationInstruction(request);
  if (!instruction) return buildSummary(request.messages, maxTokens);
  const conversation = request.messages.slice(0, -1);
  const summarized = conversation.slice(0, conversation.length - keptVerbatimCount(instruction));
  return buildSummary(summarized, maxTokens);
}

/** Validate a Chat Completions request like a strict provider and answer it (scripted agent or summary). */
export async function handleChat(
  state: SimState,
  body: unknown,
  header: (name: string) => string | undefined,
  origin?: RequestOrigin,
): Promise<ChatResult> {
  const draft: LogDraft = blankLogEntry({
    ...(origin ? { api: origin.api } : {}),
    model:
      typeof (body as { model?: unknown })?.model === "string" ? (body as { model: string }).model : null,
    stream: ((origin?.body ?? body) as { stream?: unknown })?.stream === true,
    body: state.config.logBodies ? (origin?.body ?? body) : undefined,
  });

  const fail = (error: SimError): ChatResult => {
    state.log.add({ ...draft, status: error.status, errorCode: error.code });
    return { status: error.status, headers: error.headers ?? {}, json: errorBody(error) };
  };

  const request = validateShape(body);
  if (isSimError(request)) return fail(request);
  draft.carriesProviderState = carriesProviderState(request);
  const options = parseModelName(request.model);
  if (isSimError(options)) return fail(options);
  const headerSpec = parseFaultHeaders(header("x-sim-fault"), header("x-sim-delay-ms"));
  if (isSimError(headerSpec)) return fail(headerSpec);
  const configSpec = state.config.faults;
  const specs: Array<[SimFaultSpec, string]> = [[headerSpec, headerSpec.key ?? "header"]];
  if (configSpec) specs.push([configSpec, configSpec.key ?? "config"]);

  const delayMs = state.config.delayMs + (headerSpec.delayMs ?? 0) + (configSpec?.delayMs ?? 0);
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  const fault = statusFault(state, specs);
  if (fault) return fail(fault);

  const adjacency = validateToolAdjacency(request.messages);
  if (adjacency) return fail(adjacency);
  const hashes = prefixHashes(request.messages);
  const replay = validateEncryptedReasoning(state.config.secret, request.messages, hashes);
  if (replay) return fail(replay);

  const summary = isSummaryRequest(request);
  draft.summary = summary;
  if (summary && state.config.summaryDelayMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, state.config.summaryDelayMs));
  }
  await countLongTextsOffThread(request);
  const toolTokens = countTools(request);
  const cumulative: number[] = [];
  let running = toolTokens;
  for (const message of request.messages) {
    running += countMessage(message);
    cumulative.push(running);
  }
  const promptTokens = running + TOKEN_OVERHEAD.replyPriming;
  draft.promptTokens = promptTokens;
  const window = options.ctx ?? state.config.maxInputTokens;
  const forced = specs.some(([spec, key]) => state.counters.overflowFault(spec, key));
  if (forced || promptTokens > window) {
    return fail(
      invalidRequest(
        SIM_ERROR_CODES.contextLengthExceeded,
        `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
        "messages",
      ),
    );
  }
  if (summary) {
    for (const [spec, key] of specs) {
      const summaryFault = state.counters.summaryFault(spec, key);
      if (summaryFault) return fail(summaryFault);
    }
  }

  const toolsDigest =
    String(toolTokens) + JSON.stringify((request.tools ?? []).map((tool) => tool.function.name));
  const cachedTokens = state.cache.lookupAndStore(toolsDigest, hashes, cumulative);
  const chain = hashes.at(-1) ?? "";
  const tag = chain.slice(0, 6);
  const script = options.script ?? state.config.defaultScript;
  let answer: AnswerMessage;
  let step: number | null = null;
  if (summary) {
    answer = { content: summaryOf(request), toolCalls: [], reasoningTokens: 0 };
  } else {
    const turn = agentTurn(request, script, options.steps ?? state.config.defaultSteps, tag);
    step = turn.step;
    // parallel_tool_calls: false allows at most one call per answer.
    const toolCalls = request.parallel_tool_calls === false ? turn.toolCalls.slice(0, 1) : turn.toolCalls;
    answer = { content: turn.content, toolCalls, reasoningTokens: 0 };
    draft.script = script;
  }
  if (options.reasoning ?? state.config.reasoning) {
    const names = answer.toolCalls.map((call) => call.function.name);
    answer.reasoningTokens = countText(reasoningText(step ?? 0, names));
    answer.reasoningDetails = [
      createEncryptedReasoning(state.config.secret, chain, `rs_${tag}_${state.nextId}`),
    ];
  }

  const id = `chatcmpl-sim-${state.nextId++}`;
  const usage = usageOf(answer, promptTokens, cachedTokens);
  state.log.add({
    ...draft,
    step,
    cachedTokens,
    completionTokens: usage.completion_tokens,
    toolCalls: answer.toolCalls.length,
    finishReason: answer.toolCalls.length > 0 ? "tool_calls" : "stop",
  });
  if (request.stream) {
    const includeUsage = request.stream_options?.include_usage === true;
    return {
      status: 200,
      headers: {},
      chunks: completionChunks(id, request.model, answer, usage, includeUsage),
    };
  }
  return { status: 200, headers: {}, json: completionBody(id, request.model, answer, usage) };
}
