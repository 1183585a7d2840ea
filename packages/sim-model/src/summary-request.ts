import { contentText, type WireMessage, type WireRequest } from "./wire.ts";

/** Words that mark summarizer instructions: summary, summaries, summarize/summarise (any inflection). */
export const SUMMARY_REQUEST_PATTERN = /\bsummar(?:y|ies|i[sz]e[sd]?|i[sz]ing)\b/i;

/**
 * The exact recognition rule: a request is a summarization request when it offers no tools (`tools`
 * absent or empty) and at least one `system` or `developer` message matches SUMMARY_REQUEST_PATTERN.
 */
export const SUMMARY_REQUEST_RULE =
  "no tools offered (tools absent or empty) AND a system or developer message matches SUMMARY_REQUEST_PATTERN (text inside a previous <sim-summary> block does not count)";

/** A previous sim summary inside a system message is content, not an instruction. */
function withoutSimSummaries(text: string): string {
  return text.replace(/<sim-summary v=1[\s\S]*?(<\/sim-summary>|$)/g, "");
}

/** True when the request is a summarization request (see SUMMARY_REQUEST_RULE). */
export function isSummaryRequest(request: Pick<WireRequest, "messages" | "tools">): boolean {
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
