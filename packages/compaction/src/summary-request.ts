import type { ChatMessage } from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import { memoized } from "./reductions.ts";
import { sanitizeMessages } from "./sanitize.ts";
import { MESSAGE_OVERHEAD, TOOL_CALL_OVERHEAD, type Tokenizer, type ToolSpec } from "./tokenizer.ts";
import { truncationMarker } from "./truncate.ts";

/** "prefix": an earlier part, recent messages stay verbatim; "segment": the latest work, nothing kept. */
export type SummaryKind = "prefix" | "segment";

/** Input of buildSummaryRequest. */
export interface SummaryRequestInput {
  messages: readonly ChatMessage[];
  kind: SummaryKind;
  /** Text of the summary in force, folded into the new one. */
  previousSummary?: string | null;
  now: number;
  /** IANA time zone of the user, e.g. "Europe/Berlin" (invalid → UTC). */
  timeZone: string;
  tokenizer: Tokenizer;
  /** Input budget of the summarizer model (its window minus output reserve). */
  windowTokens: number;
  /** Output budget asked of the summarizer. Default 4,096 (planCompaction passes summaryBudgetTokens). */
  maxOutputTokens?: number;
  model?: string;
  /**
   * Stored token counts of `messages` (their sanitized wire form, as the store counted them on
   * append), null where unknown: a message rendered whole is then not tokenized again; only what
   * is shortened is.
   */
  messageTokens?: readonly (number | null)[];
}

/**
 * A Chat Completions request for the summarizer, text out. `standalone`: its own system prompt and a
 * rendered transcript, no tools. `continuation`: the agent's own request (same system prompt, tools and
 * messages, so a provider's prefix cache serves it) with the instruction appended as the last user
 * message and `tool_choice: "none"` (the tools stay for the cache, and cannot be called).
 */
export interface SummaryRequest {
  model?: string;
  messages: ChatMessage[];
  max_tokens: number;
  kind: SummaryKind;
  form: "standalone" | "continuation";
  /** Continuation: the agent's tool definitions, sent as they are. */
  tools?: ToolSpec[];
  tool_choice?: "none";
  /** Continuation: leading messages identical to the agent's request (what a prefix cache can serve). */
  cachedPrefixMessages?: number;
  /** Estimated input tokens. */
  inputTokens: number;
  /** Messages shortened or left out to fit the window. */
  shortened: number;
  omitted: number;
}

/** The sections every summary has (both request forms ask for them). */
export const SUMMARY_SECTIONS = `Sections, plain text: Task (the user's words that matter, later corrections); Decisions (and why; constraints found); State of work (what is done and verified how, what is NOT done: never call unfinished or unverified work complete); Files (what changed in them and why); Open items (unfixed errors, questions; a cancelled call's outcome is unknown); Next step (the exact action).`;

/** The summarizer system prompt; starts with "You are summarizing" (the sim model keys on it). */
export function summarySystemPrompt(kind: SummaryKind): string {
  const scope =
    kind === "prefix"
      ? "the EARLIER PART of a long-running, tool-using agent's conversation. The most recent messages will follow your summary verbatim, so concentrate on what happened before them: the task, decisions, and the state they built on."
      : "the MOST RECENT SEGMENT of a long-running, tool-using agent's conversation. Nothing of it will be kept verbatim: your summary must carry the current state of work and the exact next step.";
  return `You are summarizing ${scope}
You cannot call tools; answer with text only. Resolve relative dates ("yesterday", "next week") to absolute dates using the current local date given below. Keep file paths, identifiers, commands and error messages exact.
${SUMMARY_SECTIONS}`;
}

// Building an Intl formatter costs about a millisecond; one per zone is plenty.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      weekday: "long",
      hourCycle: "h23",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Local date and time in a zone, e.g. "2026-11-30 14:05 (Europe/Berlin, Monday)". */
export function localDateTime(now: number, timeZone: string): string {
  const format = (zone: string): string => {
    const parts = formatterFor(zone).formatToParts(new Date(now));
    const get = (type: string): string => parts.find((part) => part.type === type)?.value ?? "";
    return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")} (${zone}, ${get("weekday")})`;
  };
  try {
    return format(timeZone);
  } catch {
    // A zone this runtime does not know: UTC, which the text names.
    return format("UTC");
  }
}

/** One message rendered as transcript text. */
function renderMessage(message: ChatMessage, maxChars: number): { text: string; shortened: boolean } {
  let shortened = false;
  const clip = (text: string): string => {
    if (text.length <= maxChars) return text;
    shortened = true;
    const head = Math.floor(maxChars * 0.8);
    const tail = Math.floor(maxChars * 0.15);
    return `${text.slice(0, head)}\n${truncationMarker(text.length - head - tail, "this message")}\n${text.slice(text.length - tail)}`;
  };
  const lines: string[] = [];
  const text = contentText(message.content);
  if (message.role === "tool") lines.push(`[tool result ${message.tool_call_id ?? "?"}]\n${clip(text)}`);
  else if (text.length > 0)
    lines.push(`[${message.role}${message.name ? ` ${message.name}` : ""}]\n${clip(text)}`);
  for (const call of message.tool_calls ?? []) {
    lines.push(`[assistant calls ${call.function.name} ${call.id}] ${clip(call.function.arguments)}`);
  }
  return { text: lines.join("\n"), shortened };
}

/** Tokens of a message rendered whole: its stored count with the rendering's headers for the wire framing. */
function renderedFromStored(message: ChatMessage, stored: number, tokenizer: Tokenizer): number {
  const calls = message.tool_calls ?? [];
  const headers = [
    message.role === "tool"
      ? `[tool result ${message.tool_call_id ?? "?"}]\n`
      : `[${message.role}${message.name ? ` ${message.name}` : ""}]\n`,
    ...calls.map((call) => `[assistant calls ${call.function.name} ${call.id}] `),
  ];
  const framing = MESSAGE_OVERHEAD + calls.length * TOOL_CALL_OVERHEAD;
  return Math.max(0, stored - framing) + tokenizer.count(headers.join("")) + 2;
}

/** Counts of the fixed texts (system prompts, the outro) per tokenizer: the same on every request. */
const fixedCounts = new WeakMap<Tokenizer, Map<string, number>>();

/** Tokens of a text that is the same on every request, counted once per tokenizer. */
export function countOnce(tokenizer: Tokenizer, text: string): number {
  let counts = fixedCounts.get(tokenizer);
  if (!counts) {
    counts = new Map();
    fixedCounts.set(tokenizer, counts);
  }
  return memoized(counts, text, () => tokenizer.count(text));
}

const RENDER_STEPS = [Number.POSITIVE_INFINITY, 8_000, 2_000, 500];

/**
 * Builds the summarization request: system prompt for the kind, local date and time zone, the
 * previous summary, and a sanitized transcript bounded to the window (long messages shortened,
 * then the oldest left out).
 */
export function buildSummaryRequest(input: SummaryRequestInput): SummaryRequest {
  const { tokenizer } = input;
  const maxOutput = input.maxOutputTokens ?? 4_096;
  const system = summarySystemPrompt(input.kind);
  const previous = input.previousSummary?.trim()
    ? `Summary from an earlier compaction (fold it into yours; it covers what came before the transcript):\n${input.previousSummary.trim()}\n\n`
    : "";
  const intro = `Current local date and time: ${localDateTime(input.now, input.timeZone)}.\n\n${previous}`;
  const outro = "\n</transcript>\n\nWrite the summary now.";
  const fixed = countOnce(tokenizer, system) + tokenizer.count(intro) + countOnce(tokenizer, outro) + 32;
  const budget = Math.max(0, input.windowTokens - maxOutput - fixed);
  const messages = sanitizeMessages(input.messages);
  let blocks: { text: string; tokens: number }[] = [];
  let shortened = 0;
  // A message rendered whole renders the same at every step: counted once (from its stored count when known).
  const whole: (number | undefined)[] = [];
  for (const maxChars of RENDER_STEPS) {
    shortened = 0;
    blocks = messages.map((message, index) => {
      const rendered = renderMessage(message, maxChars);
      if (rendered.shortened) {
        shortened++;
        return { text: rendered.text, tokens: tokenizer.count(rendered.text) + 2 };
      }
      let tokens = whole[index];
      if (tokens === undefined) {
        const stored = input.messageTokens?.[index];
        tokens =
          stored !== null && stored !== undefined && stored > 0
            ? renderedFromStored(message, stored, tokenizer)
            : tokenizer.count(rendered.text) + 2;
        whole[index] = tokens;
      }
      return { text: rendered.text, tokens };
    });
    if (blocks.reduce((sum, block) => sum + block.tokens, 0) <= budget) break;
  }
  let total = blocks.reduce((sum, block) => sum + block.tokens, 0);
  let omitted = 0;
  while (omitted < blocks.length && total > budget) total -= (blocks[omitted++] as { tokens: number }).tokens;
  const kept = blocks.slice(omitted).map((block) => block.text);
  if (omitted > 0) kept.unshift(`[${omitted} oldest messages left out: too large for the summarizer window]`);
  const user = `${intro}<transcript>\n${kept.join("\n\n")}${outro}`;
  const request: SummaryRequest = {
    messages: [
      { role: "system", content: system },
      { role: "user", content: user },
    ],
    max_tokens: maxOutput,
    kind: input.kind,
    form: "standalone",
    inputTokens: fixed + total,
    shortened,
    omitted,
  };
  if (input.model !== undefined) request.model = input.model;
  return request;
}
