import { createHash } from "node:crypto";

/** How many conversations one process remembers (the oldest are forgotten first). */
const DEFAULT_CAPACITY = 2_000;
/** The part of a first message a written-out transcript is searched for. */
const SNIPPET_CHARS = 160;

interface Entry {
  tenantId: string;
  threadId: string;
  snippet: string;
}

const normalize = (text: string) => text.replace(/\s+/g, " ").trim();
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 24);

/**
 * An in-memory index from a conversation's first user message to its thread, for clients that send
 * no session id. Their compaction requests carry the conversation with another system prompt, or as a
 * transcript in one message (pi), so neither the content key nor the session finds the thread; its
 * first message is still in there. The index only suggests a thread id: the caller reads the thread
 * from the store (the source of truth) and checks its tenant. A restarted server has forgotten it
 * and answers from the key alone.
 */
export class ConversationIndex {
  readonly #entries = new Map<string, Entry>();

  constructor(readonly capacity = DEFAULT_CAPACITY) {}

  /** Remembers that a conversation starting with this user message is this thread. */
  remember(tenantId: string, firstUserText: string, threadId: string): void {
    const snippet = normalize(firstUserText).slice(0, SNIPPET_CHARS);
    if (!snippet) return;
    const key = `${tenantId}\u0000${hashOf(normalize(firstUserText))}`;
    this.#entries.delete(key);
    this.#entries.set(key, { tenantId, threadId, snippet });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  /** The thread whose first user message this is. */
  byFirstUser(tenantId: string, firstUserText: string): string | undefined {
    return this.#entries.get(`${tenantId}\u0000${hashOf(normalize(firstUserText))}`)?.threadId;
  }

  /** The most recently active thread whose first user message the transcript contains. */
  inTranscript(tenantId: string, transcript: string): string | undefined {
    const text = normalize(transcript);
    const entries = [...this.#entries.values()].reverse();
    return entries.find((entry) => entry.tenantId === tenantId && text.includes(entry.snippet))?.threadId;
  }
}
