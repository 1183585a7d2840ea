import type { ChatMessage } from "@longrun/protocol";
import { ESTIMATE_PAD } from "./pressure.ts";
import { sanitizeMessages } from "./sanitize.ts";
import {
  countOnce,
  localDateTime,
  SUMMARY_SECTIONS,
  type SummaryKind,
  type SummaryRequest,
} from "./summary-request.ts";
import { estimateMessageTokens, type Tokenizer, type ToolSpec } from "./tokenizer.ts";

/** The request the agent would send now, extending its last one byte for byte (Projection.continuation). */
export interface AgentRequest {
  messages: readonly ChatMessage[];
  /** Its pressure, tool definitions included (as the projection measures it). */
  tokens: number;
}

/** Input of buildContinuationRequest. */
export interface ContinuationInput {
  agentRequest: AgentRequest;
  /** The agent's tool definitions, as its request sends them. */
  tools: readonly ToolSpec[];
  /** Messages at the end of the agent's request kept verbatim after the summary (0: nothing kept). */
  keptMessages: number;
  kind: SummaryKind;
  now: number;
  /** IANA time zone of the user (invalid → UTC). */
  timeZone: string;
  tokenizer: Tokenizer;
  /** The summarizer's whole window: input plus the output asked for. */
  windowTokens: number;
  maxOutputTokens: number;
  model?: string;
}

const OPENING =
  "[Context compaction] Do not continue the task: summarize the conversation above, so its older part can be replaced by your summary. Text only, no tool calls.";
/**
 * Every token of the instruction is sent uncached with each summary call (the rest of the request is
 * read from the cache), so it says only what the summarizer needs; the user's latest message and the
 * working-state block stay beside the summary, so the summary does not list them again.
 */
const RULES = `Use absolute dates (resolve "yesterday" against the date above). Keep paths, identifiers, commands and errors exact. The user's latest message and the "Working state" block (files read and changed, commands and outcomes, errors; an earlier summary above may hold one) are kept beside your summary: do not copy them; say what they mean for the work.
${SUMMARY_SECTIONS}`;

function scopeOf(kind: SummaryKind, keptMessages: number): string {
  if (kind === "segment" || keptMessages === 0) {
    return "Nothing above stays verbatim: summarize all of it (an earlier summary at its start included), with the current state of work and the exact next step.";
  }
  const newest = keptMessages === 1 ? "The newest message" : `The newest ${keptMessages} messages`;
  return `${newest} above will be kept verbatim after this summary: summarize everything before ${keptMessages === 1 ? "it" : "them"} (an earlier summary at the start included).`;
}

/** The instruction appended to the agent's request, as the last user message. */
export function continuationInstruction(input: {
  kind: SummaryKind;
  keptMessages: number;
  now: number;
  timeZone: string;
}): string {
  return `${OPENING}\nNow: ${localDateTime(input.now, input.timeZone)}.\n${scopeOf(input.kind, input.keptMessages)}\n${RULES}`;
}

/** Tokens the instruction adds to the agent's request (padded; its date and count vary by a few tokens). */
export function continuationInstructionTokens(tokenizer: Tokenizer): number {
  const typical = continuationInstruction({ kind: "prefix", keptMessages: 10, now: 0, timeZone: "UTC" });
  return Math.ceil((countOnce(tokenizer, typical) + 8) * ESTIMATE_PAD);
}

/**
 * What a kept message says in a summary call that must shed tokens: the summary does not cover it
 * (it stays verbatim after the summary), so the summarizer needs only to know it is there.
 */
export function keptStandIn(tokens: number): string {
  return `[Kept verbatim after your summary (${tokens} tokens): not repeated here, do not summarize it.]`;
}

/**
 * The agent's messages with the largest kept ones (the last `keptMessages`) replaced by a stand-in
 * until `excess` tokens are shed, or null when even that is not enough. Tool results and user text
 * only: an assistant message keeps its calls, so every result still answers its call.
 */
function shedKept(
  messages: readonly ChatMessage[],
  keptMessages: number,
  excess: number,
  tokenizer: Tokenizer,
): { messages: ChatMessage[]; firstShortened: number; shed: number } | null {
  const from = messages.length - keptMessages;
  const candidates = messages
    .map((message, index) => ({ message, index }))
    .filter(
      ({ message, index }) =>
        index >= from && (message.role === "tool" || message.role === "user") && message.content !== null,
    )
    .map(({ message, index }) => ({ index, tokens: estimateMessageTokens(message, tokenizer) }))
    .sort((a, b) => b.tokens - a.tokens || a.index - b.index);
  const out = [...messages];
  let shed = 0;
  let firstShortened = messages.length;
  for (const { index, tokens } of candidates) {
    if (shed >= excess) break;
    const message = messages[index] as ChatMessage;
    const standIn = { ...message, content: keptStandIn(tokens) } as ChatMessage;
    const saved = tokens - estimateMessageTokens(standIn, tokenizer);
    if (saved <= 0) continue;
    out[index] = standIn;
    shed += saved;
    firstShortened = Math.min(firstShortened, index);
  }
  return shed >= excess ? { messages: out, firstShortened, shed } : null;
}

/**
 * The summary call as a continuation of the agent's own request: the same messages (so a provider's
 * prefix cache serves everything the agent already sent), the same tools with `tool_choice: "none"`,
 * then the instruction as the last user message; `max_tokens` is the summary budget. When the request,
 * the instruction and the output budget would not fit the summarizer's window — typically a large
 * result has just arrived — the largest kept messages (which the summary does not cover) are replaced
 * by a stand-in: the prefix before them is still served from the cache, where a standalone request
 * would be written whole. Null when even that does not fit (the caller falls back to the standalone
 * request, which shortens what it renders).
 *
 * Provider-private state (I5): the messages go through the shared sanitizer once more. The agent's
 * request is already sanitized by the projection everywhere its chain was broken — after any compaction
 * (assembleRaw), in a fork prefix (assembleHeader), and from the first message a stage rewrote (project)
 * — so this changes nothing and the prefix stays byte-identical. Only before the first compaction, where
 * the original chain still replays its encrypted reasoning, does it strip that state: the request then
 * matches the agent's only up to the first such message (`cachedPrefixMessages` says how far).
 */
export function buildContinuationRequest(input: ContinuationInput): SummaryRequest | null {
  const { agentRequest, tokenizer } = input;
  const instruction = continuationInstruction(input);
  const instructionTokens = Math.ceil((tokenizer.count(instruction) + 8) * ESTIMATE_PAD);
  let messages = sanitizeMessages(agentRequest.messages);
  const changed = sanitized(messages, agentRequest.messages);
  let cachedPrefix = changed;
  let inputTokens = agentRequest.tokens + instructionTokens;
  let shortened = 0;
  const excess = inputTokens + input.maxOutputTokens - input.windowTokens;
  if (excess > 0) {
    const shed = shedKept(messages, input.keptMessages, Math.ceil(excess * ESTIMATE_PAD), tokenizer);
    if (shed === null) return null;
    shortened = shed.messages.filter((message, index) => message !== messages[index]).length;
    messages = shed.messages;
    cachedPrefix = Math.min(cachedPrefix, shed.firstShortened);
    inputTokens -= shed.shed;
  }
  const request: SummaryRequest = {
    messages: [...messages, { role: "user", content: instruction }],
    max_tokens: input.maxOutputTokens,
    kind: input.kind,
    form: "continuation",
    // Providers refuse tool_choice without tools: an agent without tools sends neither.
    ...(input.tools.length > 0 ? { tools: [...input.tools], tool_choice: "none" as const } : {}),
    cachedPrefixMessages: cachedPrefix,
    inputTokens,
    shortened,
    omitted: 0,
  };
  if (input.model !== undefined) request.model = input.model;
  return request;
}

/** How many leading messages the sanitizer left as they were (all of them: their count). */
function sanitized(messages: readonly ChatMessage[], original: readonly ChatMessage[]): number {
  const changed = messages.findIndex((message, index) => message !== original[index]);
  return changed < 0 ? messages.length : changed;
}
