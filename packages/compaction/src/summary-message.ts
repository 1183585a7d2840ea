import type { ChatMessage, CompactionStrategy, Ledger } from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import { LEDGER_FOOTER, LEDGER_HEADER } from "./ledger/render-ledger.ts";
import { markUnverifiedClaims } from "./ledger/unverified-claims.ts";
import type { Tokenizer } from "./tokenizer.ts";

/** Facts about a compaction shown in its summary message header. */
export interface SummaryMeta {
  strategy: CompactionStrategy;
  /** Number of messages the summary replaces. */
  summarizedMessages: number;
  /** Seq range summarized, when known. */
  firstSeq?: number;
  lastSeq?: number;
  /**
   * The summarizer's text covers the range only up to this seq (it was prepared in the background
   * before the rest happened); the messages after it are carried by the working-state ledger alone.
   */
  textThroughSeq?: number;
}

export const SUMMARY_HEADER = "[Context summary — earlier conversation compacted]";

/**
 * The compaction event's summary_message: a user message (strict providers accept a user turn
 * right after the system prompt) that starts with SUMMARY_HEADER. The working-state ledger, when
 * given, is its own block after the summarizer's text, never inside it; with the ledger itself, a
 * completion the text states that the ledger cannot cite is marked `[unverified: …]`.
 */
export function buildSummaryMessage(
  text: string,
  meta: SummaryMeta,
  ledgerText: string | null = null,
  ledger: Ledger | null = null,
): ChatMessage {
  const range =
    meta.firstSeq !== undefined && meta.lastSeq !== undefined ? `, seq ${meta.firstSeq}–${meta.lastSeq}` : "";
  const partly =
    meta.textThroughSeq !== undefined && meta.lastSeq !== undefined && meta.textThroughSeq < meta.lastSeq
      ? `; the text below covers them through seq ${meta.textThroughSeq}, the working-state ledger all of them`
      : "";
  const ending =
    meta.strategy === "partial"
      ? "[End of summary. The messages after it are the recent conversation, verbatim.]"
      : "[End of summary. Nothing after it was kept verbatim; continue from the next step above.]";
  const body = ledger === null ? text.trim() : markUnverifiedClaims(text.trim(), ledger);
  const parts = [
    `${SUMMARY_HEADER}\n(${meta.strategy} compaction of ${meta.summarizedMessages} messages${range}${partly}; the full history is kept outside this context)`,
    ...(body ? [body] : []),
    ...(ledgerText ? [ledgerText] : []),
    ending,
  ];
  return { role: "user", content: parts.join("\n\n") };
}

/**
 * A summary message's text without its ledger block: what the next summarizer folds in, so the
 * summary never depends on the ledger (and the ledger is not summarized twice).
 */
export function summaryTextOf(message: ChatMessage): string {
  const text = contentText(message.content);
  const start = text.indexOf(LEDGER_HEADER);
  if (start < 0) return text;
  const end = text.indexOf(LEDGER_FOOTER, start);
  const after = end < 0 ? "" : text.slice(end + LEDGER_FOOTER.length);
  return `${text.slice(0, start).trimEnd()}\n\n${after.trimStart()}`.trim();
}

/** A summary message taken apart: the summarizer's text, and how to put it back in its frame. */
export interface SummaryFrame {
  text: string;
  build: (text: string, ledgerText: string | null) => ChatMessage;
}

/**
 * The summarizer's text of a summary message (without header, ledger block and closing line) and a
 * builder that puts a (shorter) text and ledger back between the same header and closing line.
 */
export function summaryFrameOf(message: ChatMessage): SummaryFrame {
  const paragraphs = summaryTextOf(message).split("\n\n");
  const head = paragraphs[0]?.startsWith(SUMMARY_HEADER) ? paragraphs.shift() : undefined;
  const ending = paragraphs.at(-1)?.startsWith("[End of summary") ? paragraphs.pop() : undefined;
  return {
    text: paragraphs.join("\n\n").trim(),
    build: (text, ledgerText) => ({
      role: "user",
      content: [head, text.trim(), ledgerText, ending].filter((part) => part).join("\n\n"),
    }),
  };
}

/**
 * The summarizer's text cut at the last paragraph (else line) boundary that fits `maxTokens`, with
 * a pointer to where the rest lives. Unchanged when it fits.
 */
export function cutSummaryText(
  text: string,
  maxTokens: number,
  tokenizer: Tokenizer,
  historyFile: string | null,
): { text: string; cut: boolean } {
  const trimmed = text.trim();
  if (tokenizer.count(trimmed) <= maxTokens) return { text: trimmed, cut: false };
  const where = historyFile ? `the history file ${historyFile}` : "the agent's message log";
  const pointer = `[Summary cut to fit the window; the compacted messages are in ${where}.]`;
  const budget = maxTokens - tokenizer.count(pointer) - 2;
  const lines = trimmed.split("\n");
  let keep = 0;
  let used = 0;
  let lastParagraph = 0;
  for (const line of lines) {
    const cost = tokenizer.count(line) + 1;
    if (used + cost > budget) break;
    used += cost;
    keep++;
    if (line.trim() === "") lastParagraph = keep;
  }
  // Prefer a paragraph boundary unless that throws away most of what fits.
  const end = lastParagraph >= keep / 2 ? lastParagraph : keep;
  const kept = lines.slice(0, end).join("\n").trim();
  return { text: kept ? `${kept}\n${pointer}` : pointer, cut: true };
}
