import { createHash } from "node:crypto";
import type { ClientTurn } from "./client-turn.ts";
import { textOf } from "./content.ts";

/** Reads a request header by lower-case name. */
export type HeaderReader = (name: string) => string | undefined;

/** Header a client sets to name its conversation explicitly (any string; scoped to the tenant). */
export const CONVERSATION_HEADER = "x-longrun-conversation";

/** Where a conversation key came from, strongest first. */
export type KeySource = "header" | "prompt_cache_key" | "session" | "content";

export interface ConversationKey {
  key: string;
  source: KeySource;
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** How clients write their working directory into the system prompt or an environment message. */
const WORKING_DIRECTORY = [
  /<cwd>([^<\n]+)<\/cwd>/, // Codex's environment_context
  /\b(?:current )?working directory:\s*(\S+)/i, // opencode, Claude Code, pi
  /currently working in the directory:?\s*(\S+)/i, // Gemini CLI, qwen-code
];

/** The working directory a client names in its system prompt or first messages, if it names one. */
export function workingDirectoryOf(turn: Pick<ClientTurn, "system" | "items">): string | undefined {
  const texts = [turn.system, ...turn.items.slice(0, 3).map((item) => textOf(item.content))];
  for (const text of texts) {
    for (const pattern of WORKING_DIRECTORY) {
      const match = pattern.exec(text.slice(0, 200_000));
      if (match?.[1]) return match[1].replace(/[.,;)"'`]+$/, "");
    }
  }
  return undefined;
}

/** The text of a history's first user message: with the working directory, a session's stable signal. */
export function firstUserText(items: ClientTurn["items"]): string {
  const first = items.find((item) => item.role === "user");
  return first ? textOf(first.content) : "";
}

/**
 * The content key of a client that sends no session id: its working directory and first user message.
 * Both stay the same for a whole session, whatever the client changes in its system prompt (a date,
 * a git status, a compaction prompt of its own) — a hash of the system text split such sessions.
 */
export function contentKey(turn: Pick<ClientTurn, "system" | "items">): string {
  const directory = workingDirectoryOf(turn) ?? "";
  const first = firstUserText(turn.items) || textOf(turn.items[0]?.content);
  const seed = directory || first ? `${directory}\u0000${first}` : turn.system;
  return `content:${shortHash(seed)}`;
}

/**
 * The session part of a conversation's key: an explicit header, the Responses `prompt_cache_key`
 * (Codex sends its session id; Claude Code's `metadata.user_id` session id arrives there too), a
 * session header (opencode's `x-session-id`, Claude Code's `x-claude-code-session-id`), or else the
 * content key (working directory and first user message; stable because clients resend their history).
 */
export function sessionKey(turn: ClientTurn, header: HeaderReader): ConversationKey {
  const explicit = header(CONVERSATION_HEADER)?.trim();
  if (explicit) return { key: `conversation:${explicit}`, source: "header" };
  if (turn.promptCacheKey) return { key: `cache:${turn.promptCacheKey}`, source: "prompt_cache_key" };
  const session = (
    header("x-session-id") ??
    header("session-id") ??
    header("session_id") ??
    header("x-claude-code-session-id")
  )?.trim();
  if (session) return { key: `session:${session}`, source: "session" };
  return { key: contentKey(turn), source: "content" };
}

/**
 * The key of the conversation a request belongs to. Within one client session, the agent's own
 * conversation (the requests that offer tools) is kept apart from side requests such as title
 * generation (no tools, their own system prompt), which become conversations of their own.
 */
export function conversationKey(turn: ClientTurn, header: HeaderReader): ConversationKey {
  const session = sessionKey(turn, header);
  if (session.source === "header") return session;
  // A content key is the agent's conversation itself; a side request keyed by content (same first
  // message, no tools, its own system prompt) is still kept apart from it.
  if (turn.tools.length > 0)
    return session.source === "content" ? session : { ...session, key: `${session.key}|agent` };
  return { ...session, key: `${session.key}|side:${shortHash(turn.system.slice(0, 512))}` };
}

/** The conversation a client's own compaction request is about: the session's agent conversation. */
export function agentConversationKey(turn: ClientTurn, header: HeaderReader): ConversationKey {
  const session = sessionKey(turn, header);
  if (session.source === "header" || session.source === "content") return session;
  return { ...session, key: `${session.key}|agent` };
}

/**
 * A UUID-shaped id (version 8, RFC 9562) derived from the tenant and a key: the same conversation
 * maps to the same thread on every server instance without a lookup table, and tenants never share one.
 */
export function derivedThreadId(tenantId: string, key: string): string {
  const hex = createHash("sha256").update(`${tenantId}\u0000${key}`).digest("hex");
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The key of the branch a history that left its conversation at `at` continues in. */
export function branchKey(key: string, itemFingerprints: readonly string[], at: number): string {
  return `${key}#branch:${shortHash(itemFingerprints.slice(0, at + 1).join("\n"))}`;
}
