import { LEDGER_FOOTER, LEDGER_HEADER, SUMMARY_HEADER, type ToolSpec } from "@longrun/compaction";
import { type ChatMessage, contentText } from "@longrun/protocol";
import { identifiersOf, messageText } from "./identifiers.ts";
import type { Transcript } from "./transcript.ts";

/** Default number of assistant messages ahead whose identifiers a request is searched for. */
export const DEFAULT_FORWARD_N = 10;

/** One request's forward-use recall: identifiers needed, and how many it carries. */
export interface ForwardUseCount {
  /** Identifiers the next N assistant messages use that appeared in the transcript before the call point. */
  needed: number;
  /** Of those, found anywhere in the request's messages. */
  whole: number;
  /** Found with the summarizer's text taken out of the summary message (its ledger block kept). */
  withoutSummary: number;
}

const MEMO_LIMIT = 20_000;

/** The runtime's ledger block of a summary message (deterministic, not the summarizer's), or "". */
function ledgerBlock(text: string): string {
  const start = text.indexOf(LEDGER_HEADER);
  if (start < 0) return "";
  const end = text.indexOf(LEDGER_FOOTER, start);
  return end < 0 ? text.slice(start) : text.slice(start, end + LEDGER_FOOTER.length);
}

/**
 * Forward-use recall: before call point `index`, which identifiers (file names, paths, code symbols)
 * of the next N assistant messages — the ones the agent is about to use — the request still carries,
 * among those that appeared in the transcript before the call point. Identifiers of the system
 * prompt and tool definitions are left out: every request carries them whatever compaction does.
 */
export class ForwardUse {
  private readonly assistants: number[] = [];
  /** Identifiers per transcript message (facts only). */
  private readonly byMessage: Set<string>[] = [];
  /** Where each identifier first appears in the facts. */
  private readonly firstSeen = new Map<string, number>();
  private readonly fixed: Set<string>;
  /** Identifiers per text searched (messages repeat from request to request). */
  private readonly memo = new Map<string, Set<string>>();

  constructor(
    transcript: Transcript,
    tools: readonly ToolSpec[],
    private readonly forwardN: number = DEFAULT_FORWARD_N,
  ) {
    this.fixed = identifiersOf(JSON.stringify(tools), identifiersOf(transcript.systemPrompt ?? ""));
    transcript.messages.forEach((message, index) => {
      const found =
        index < transcript.firstFactIndex ? new Set<string>() : identifiersOf(messageText(message));
      this.byMessage.push(found);
      if (index < transcript.firstFactIndex) return;
      if (message.role === "assistant") this.assistants.push(index);
      for (const identifier of found)
        if (!this.firstSeen.has(identifier)) this.firstSeen.set(identifier, index);
    });
  }

  /** The identifiers the next N assistant messages from `index` use that appeared before it. */
  needed(index: number): Set<string> {
    const needed = new Set<string>();
    const ahead = this.assistants.filter((at) => at >= index).slice(0, this.forwardN);
    for (const at of ahead) {
      for (const identifier of this.byMessage[at] ?? []) {
        const first = this.firstSeen.get(identifier);
        if (first !== undefined && first < index && !this.fixed.has(identifier)) needed.add(identifier);
      }
    }
    return needed;
  }

  /** Recall of one request: its messages searched whole, and without the summarizer's text. */
  measure(index: number, messages: readonly ChatMessage[]): ForwardUseCount {
    const needed = this.needed(index);
    const whole: Set<string>[] = [];
    const withoutSummary: Set<string>[] = [];
    for (const message of messages) {
      if (message.role === "system") continue;
      const text = messageText(message);
      const found = this.identifiers(text);
      whole.push(found);
      const summary = message.role === "user" && contentText(message.content).startsWith(SUMMARY_HEADER);
      withoutSummary.push(summary ? this.identifiers(ledgerBlock(text)) : found);
    }
    const count = (sets: Set<string>[]) =>
      [...needed].filter((identifier) => sets.some((set) => set.has(identifier))).length;
    return { needed: needed.size, whole: count(whole), withoutSummary: count(withoutSummary) };
  }

  private identifiers(text: string): Set<string> {
    let found = this.memo.get(text);
    if (!found) {
      if (this.memo.size >= MEMO_LIMIT) this.memo.clear();
      found = identifiersOf(text);
      this.memo.set(text, found);
    }
    return found;
  }
}
