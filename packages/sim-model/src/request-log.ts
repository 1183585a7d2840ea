/** The wire format a request came in (the sim speaks all three). */
export type SimApi = "chat-completions" | "responses" | "anthropic-messages";

/** One answered request, as `GET /sim/log` and `server.log` report it. */
export interface SimLogEntry {
  seq: number;
  at: number;
  api: SimApi;
  model: string | null;
  stream: boolean;
  status: number;
  errorCode: string | null;
  summary: boolean;
  script: string | null;
  step: number | null;
  promptTokens: number | null;
  cachedTokens: number | null;
  completionTokens: number | null;
  toolCalls: number;
  finishReason: "stop" | "tool_calls" | null;
  /**
   * The request carried provider-private state: reasoning_details or reasoning_content on some message,
   * a Responses reasoning item, an Anthropic thinking or redacted_thinking block.
   */
  carriesProviderState: boolean;
  /** The request body as received (omitted when `logBodies` is off). */
  body: unknown;
}

/** A log entry for a request that has not been answered yet: everything unknown, status 200. */
export function blankLogEntry(
  overrides: Partial<Omit<SimLogEntry, "seq" | "at">> = {},
): Omit<SimLogEntry, "seq" | "at"> {
  return {
    api: "chat-completions",
    model: null,
    stream: false,
    status: 200,
    errorCode: null,
    summary: false,
    script: null,
    step: null,
    promptTokens: null,
    cachedTokens: null,
    completionTokens: null,
    toolCalls: 0,
    finishReason: null,
    carriesProviderState: false,
    body: undefined,
    ...overrides,
  };
}

/** In-memory request log with a bounded size (oldest entries dropped first). */
export class RequestLog {
  private items: SimLogEntry[] = [];
  private nextSeq = 1;

  constructor(private readonly limit: number) {}

  /** Append an entry, giving it a sequence number and time. */
  add(entry: Omit<SimLogEntry, "seq" | "at">): SimLogEntry {
    const stored = { seq: this.nextSeq++, at: Date.now(), ...entry };
    this.items.push(stored);
    if (this.items.length > this.limit) this.items.splice(0, this.items.length - this.limit);
    return stored;
  }

  /** All kept entries, oldest first. */
  get entries(): readonly SimLogEntry[] {
    return this.items;
  }

  /** Drop every entry. */
  clear(): void {
    this.items = [];
  }
}
