import type { ChatMessage } from "@longrun/protocol";
import { estimateMessageTokens, MESSAGE_OVERHEAD, type Tokenizer } from "./tokenizer.ts";

/** Input of PlainStrategy: the window and what every request sends besides its messages. */
export interface PlainStrategyOptions {
  windowTokens: number;
  /** Tokens of the system prompt and tool definitions, sent with every request. */
  headerTokens: number;
  tokenizer: Tokenizer;
  /** Summarize when a request passes this share of the window (default 0.75). */
  triggerRatio?: number;
  /** The summary is this share of the window (default 0.05). */
  summaryRatio?: number;
  /** The newest messages up to this share of the window stay verbatim (default 0.10). */
  keepRatio?: number;
}

/** The messages of one request with their token counts (`tokens`: header included). */
export interface PlainRequest {
  messages: ChatMessage[];
  messageTokens: number[];
  tokens: number;
}

/** What the plain strategy sends before one assistant message. */
export interface PlainCallPoint {
  /**
   * The summary call, when this call point compacted: the request it extends plus the instruction;
   * `dropped` oldest messages left out when that would not fit the window with the summary's output.
   */
  summary?: { request: PlainRequest; outputTokens: number; dropped: number };
  compaction?: { tokensBefore: number; tokensAfter: number; summarizedMessages: number };
  /** The request for the assistant message. */
  request: PlainRequest;
}

/** The user turn a plain summary call appends to the conversation it summarizes. */
export const PLAIN_SUMMARY_INSTRUCTION =
  "Summarize the conversation so far for a continuation of this work: the task, decisions, files touched, what is done and not done, errors still open, and the next step. Answer with the summary only.";

/**
 * What most agent CLIs do, as a baseline: append every message; when a request passes the trigger,
 * one summary call extends the conversation as sent (so a prefix cache serves all of it but the
 * new messages and the instruction) and returns a summary of a fixed size, which replaces every
 * message except the newest ones within the keep share. The cut never opens on a tool result: it
 * moves back to the call that produced it. A summary call that would not fit the window leaves out
 * its oldest messages (never opening on a tool result), as such CLIs retry a too-long summary
 * request. The summary's text is not generated: it is a marker counted at its nominal size
 * (summaryRatio of the window), which is all pricing needs.
 */
export class PlainStrategy {
  private messages: ChatMessage[] = [];
  private tokens: number[] = [];
  private summaries = 0;
  private readonly instruction: { message: ChatMessage; tokens: number };

  constructor(private readonly options: PlainStrategyOptions) {
    const message: ChatMessage = { role: "user", content: PLAIN_SUMMARY_INSTRUCTION };
    this.instruction = { message, tokens: estimateMessageTokens(message, options.tokenizer) };
  }

  /** Tokens a request passes to trigger a summary. */
  get triggerTokens(): number {
    return Math.floor(this.options.windowTokens * (this.options.triggerRatio ?? 0.75));
  }

  /** Appends what happened since the last call point; returns what is sent before the next assistant message. */
  callPoint(appended: readonly ChatMessage[]): PlainCallPoint {
    for (const message of appended) {
      this.messages.push(message);
      this.tokens.push(estimateMessageTokens(message, this.options.tokenizer));
    }
    const before = this.request();
    if (before.tokens <= this.triggerTokens) return { request: before };
    const cut = this.keptFrom();
    if (cut === 0) return { request: before };
    const summaryTokens = Math.floor(this.options.windowTokens * (this.options.summaryRatio ?? 0.05));
    const summaryCall = this.summaryCall(before, this.options.windowTokens - summaryTokens);
    this.summaries += 1;
    const summary: ChatMessage = {
      role: "user",
      content: `[Summary ${this.summaries} of the ${cut} earlier messages: ${summaryTokens} tokens of summarizer text]`,
    };
    this.messages = [summary, ...this.messages.slice(cut)];
    this.tokens = [summaryTokens + MESSAGE_OVERHEAD, ...this.tokens.slice(cut)];
    const after = this.request();
    return {
      summary: { request: summaryCall.request, outputTokens: summaryTokens, dropped: summaryCall.dropped },
      compaction: { tokensBefore: before.tokens, tokensAfter: after.tokens, summarizedMessages: cut },
      request: after,
    };
  }

  /** The request plus the instruction, its oldest messages left out while it is over `fitTokens`. */
  private summaryCall(request: PlainRequest, fitTokens: number): { request: PlainRequest; dropped: number } {
    let tokens = request.tokens + this.instruction.tokens;
    let dropped = 0;
    const { messages, messageTokens } = request;
    const drop = () => {
      tokens -= messageTokens[dropped] ?? 0;
      dropped++;
    };
    if (tokens > fitTokens) {
      while (dropped < messages.length && tokens > fitTokens) drop();
      while (dropped < messages.length && messages[dropped]?.role === "tool") drop();
    }
    return {
      request: {
        messages: [...messages.slice(dropped), this.instruction.message],
        messageTokens: [...messageTokens.slice(dropped), this.instruction.tokens],
        tokens,
      },
      dropped,
    };
  }

  private request(): PlainRequest {
    const messageTokens = [...this.tokens];
    const tokens = messageTokens.reduce((sum, count) => sum + count, this.options.headerTokens);
    return { messages: [...this.messages], messageTokens, tokens };
  }

  /** Index of the first kept message: the newest always, then older ones while they fit the keep share. */
  private keptFrom(): number {
    const keepTokens = Math.floor(this.options.windowTokens * (this.options.keepRatio ?? 0.1));
    let cut = this.messages.length - 1;
    let kept = this.tokens[cut] ?? 0;
    while (cut > 0 && kept + (this.tokens[cut - 1] ?? 0) <= keepTokens) {
      cut--;
      kept += this.tokens[cut] ?? 0;
    }
    while (cut > 0 && this.messages[cut]?.role === "tool") cut--;
    return Math.max(0, cut);
  }
}
