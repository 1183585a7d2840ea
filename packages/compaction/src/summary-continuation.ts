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
import type { Tokenizer, ToolSpec } from "./tokenizer.ts";

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
  "[Context compaction] Do not continue the task in this answer: summarize the conversation above so its older part can be replaced by your summary. You cannot call tools; answer with text only.";
const RULES = `Resolve relative dates ("yesterday", "next week") to absolute dates using the current local date given above. Keep file paths, identifiers, commands and error messages exact. A "Working state" block inside an earlier summary is kept separately: do not copy it.
${SUMMARY_SECTIONS}`;

function scopeOf(kind: SummaryKind, keptMessages: number): string {
  if (kind === "segment" || keptMessages === 0) {
    return "Nothing of the conversation above will be kept verbatim: summarize all of it (an earlier summary at its start included); your summary must carry the current state of work and the exact next step.";
  }
  const newest = keptMessages === 1 ? "The newest message" : `The newest ${keptMessages} messages`;
  return `${newest} above will be kept verbatim after this summary: summarize everything before ${keptMessages === 1 ? "it" : "them"} (an earlier summary at the start included), concentrating on the task, the decisions and the state of work they built on.`;
}

/** The instruction appended to the agent's request, as the last user message. */
export function continuationInstruction(input: {
  kind: SummaryKind;
  keptMessages: number;
  now: number;
  timeZone: string;
}): string {
  return `${OPENING}\nCurrent local date and time: ${localDateTime(input.now, input.timeZone)}.\n${scopeOf(input.kind, input.keptMessages)}\n${RULES}`;
}

/** Tokens the instruction adds to the agent's request (padded; its date and count vary by a few tokens). */
export function continuationInstructionTokens(tokenizer: Tokenizer): number {
  const typical = continuationInstruction({ kind: "prefix", keptMessages: 10, now: 0, timeZone: "UTC" });
  return Math.ceil((countOnce(tokenizer, typical) + 8) * ESTIMATE_PAD);
}

/**
 * The summary call as a continuation of the agent's own request: the same messages (so a provider's
 * prefix cache serves everything the agent already sent), the same tools with `tool_choice: "none"`,
 * then the instruction as the last user message; `max_tokens` is the summary budget. Null when the
 * request, the instruction and the output budget would not fit the summarizer's window (the caller
 * falls back to the standalone request, which shortens what it renders).
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
  const inputTokens = agentRequest.tokens + instructionTokens;
  if (inputTokens + input.maxOutputTokens > input.windowTokens) return null;
  const sanitized = sanitizeMessages(agentRequest.messages);
  const changed = sanitized.findIndex((message, index) => message !== agentRequest.messages[index]);
  const request: SummaryRequest = {
    messages: [...sanitized, { role: "user", content: instruction }],
    max_tokens: input.maxOutputTokens,
    kind: input.kind,
    form: "continuation",
    // Providers refuse tool_choice without tools: an agent without tools sends neither.
    ...(input.tools.length > 0 ? { tools: [...input.tools], tool_choice: "none" as const } : {}),
    cachedPrefixMessages: changed < 0 ? sanitized.length : changed,
    inputTokens,
    shortened: 0,
    omitted: 0,
  };
  if (input.model !== undefined) request.model = input.model;
  return request;
}
