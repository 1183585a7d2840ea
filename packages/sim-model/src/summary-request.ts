import { contentText, type WireMessage, type WireRequest } from "./wire.ts";

/** Words that mark summarizer instructions: summary, summaries, summarize/summarise (any inflection). */
export const SUMMARY_REQUEST_PATTERN = /\bsummar(?:y|ies|i[sz]e[sd]?|i[sz]ing)\b/i;

/**
 * The exact recognition rule, two shapes. Standalone: no tools offered (`tools` absent or empty) and at
 * least one `system` or `developer` message matches SUMMARY_REQUEST_PATTERN. Continuation (an agent's
 * own request continued, so a prefix cache serves it): `tool_choice: "none"` and the last message is a
 * user message matching SUMMARY_REQUEST_PATTERN (the instruction).
 */
export const SUMMARY_REQUEST_RULE =
  'no tools offered (tools absent or empty) AND a system or developer message matches SUMMARY_REQUEST_PATTERN (text inside a previous <sim-summary> block does not count); OR tool_choice "none" AND the last message is a user message matching SUMMARY_REQUEST_PATTERN';

/** A previous sim summary inside a system message is content, not an instruction. */
function withoutSimSummaries(text: string): string {
  return text.replace(/<sim-summary v=1[\s\S]*?(<\/sim-summary>|$)/g, "");
}

/** The instruction of a continuation-shaped summarization request (see SUMMARY_REQUEST_RULE), or null. */
export function continuationInstruction(
  request: Pick<WireRequest, "messages"> & { tool_choice?: unknown },
): WireMessage | null {
  if (request.tool_choice !== "none") return null;
  const last = request.messages.at(-1);
  if (last?.role !== "user") return null;
  const text = withoutSimSummaries(contentText(last.content));
  return SUMMARY_REQUEST_PATTERN.test(text) ? last : null;
}

/**
 * How many of the newest messages before a continuation's instruction it says are kept verbatim
 * ("the newest 12 messages", "the newest message"): the summary leaves them out. 0 when it says none.
 */
export function keptVerbatimCount(instruction: WireMessage): number {
  const text = contentText(instruction.content);
  const many = text.match(/\bnewest (\d+) messages\b/i);
  if (many) return Number(many[1]);
  return /\bnewest message\b/i.test(text) ? 1 : 0;
}

/** True when the request is a summarization request (see SUMMARY_REQUEST_RULE). */
export function isSummaryRequest(
  request: Pick<WireRequest, "messages" | "tools"> & { tool_choice?: unknown },
): boolean {
  if (continuationInstruction(request)) return true;
  if (request.tools && request.tools.length > 0) return false;
  return request.messages.some(
    (message) =>
      (message.role === "system" || message.role === "developer") &&
      SUMMARY_REQUEST_PATTERN.test(withoutSimSummaries(contentText(message.content))),
  );
}

/**
 * Instruction messages of a summarization request are not transcript: system/developer messages, and
 * short (< 1,000 characters) user messages that match the pattern, like "Summarize the above".
 * A previous sim summary is never an instruction, whatever its role: it is folded in.
 */
export function isSummaryInstruction(message: WireMessage): boolean {
  const text = contentText(message.content);
  if (text.includes("<sim-summary v=1")) return false;
  if (message.role === "system" || message.role === "developer") return true;
  return message.role === "user" && text.length < 1000 && SUMMARY_REQUEST_PATTERN.test(text);
}
