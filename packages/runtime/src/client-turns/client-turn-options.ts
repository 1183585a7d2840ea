import type { UpstreamApi } from "@longrun/protocol";
import type { ConversationIndex } from "./conversation-index.ts";
import type { PromptCacheLedger } from "./prompt-cache.ts";

/** A source of live events (the server's bus subscription); used only to wake waiters early. */
export interface LiveEventSource {
  subscribe(handler: (event: unknown) => void): () => void;
}

/** What the gateway needs besides the runtime's deps. */
export interface ClientTurnOptions {
  /** A new thread's workspace folder (history files of its compactions go there). */
  workspaceFor(threadId: string): Promise<string>;
  live?: LiveEventSource;
  /** Window for conversations whose request does not say one (`x-longrun-max-input-tokens`). */
  defaultMaxInputTokens?: number;
  /** Agent lease length; renewed while the upstream answers. Default 30 s. */
  leaseMs?: number;
  /** How long a request waits for another request of the same conversation. Default 60 s. */
  leaseWaitMs?: number;
  /** How long a turn waits for its queued compaction job. Default 5 min (the job's own timeout). */
  compactionTimeoutMs?: number;
  /** Remembers each conversation's last upstream prompt, to report cache reads and writes. */
  promptCache?: PromptCacheLedger;
  /** Finds the conversation of a client that sends no session id (see ConversationIndex). */
  conversationIndex?: ConversationIndex;
  /**
   * The wire format conversations call the upstream in (LONGRUN_UPSTREAM_API, as for longrun's own
   * agents; default chat-completions). Kept on each conversation's profile, so its summaries use it too.
   */
  upstreamApi?: UpstreamApi;
  /** Thinking budget on an Anthropic upstream when the client's own request does not set one. */
  thinkingBudgetTokens?: number;
}

/** Header that sets a conversation's window in tokens. */
export const MAX_INPUT_TOKENS_HEADER = "x-longrun-max-input-tokens";
/** Header that turns longrun's compaction off (or on again) for a conversation: `off` | `on`. */
export const COMPACTION_HEADER = "x-longrun-compaction";
/** Header that declares the client's own window in tokens (smaller than longrun's: usage is scaled to it). */
export const CLIENT_WINDOW_HEADER = "x-longrun-client-window";
