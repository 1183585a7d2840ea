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

/**
 * The session part of a conversation's key: an explicit header, the Responses `prompt_cache_key`
 * (Codex sends its session id), a session header (opencode's `x-session-id`, Claude Code's
 * `x-claude-code-session-id`), or else a hash of the
 * system text and the first item (stable because clients resend their whole history).
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
  const first = turn.items[0];
  return {
    key: `content:${shortHash(`${turn.system}\u0000${first ? `${first.role}:${textOf(first.content)}` : ""}`)}`,
    source: "content",
  };
}

/**
 * The key of the conversation a request belongs to. Within one client session, the agent's own
 * conversation (the requests that offer tools) is kept apart from side requests such as title
 * generation (no tools, their own system prompt), which become conversations of their own.
 */
export function conversationKey(turn: ClientTurn, header: HeaderReader): ConversationKey {
  const session = sessionKey(turn, header);
  if (session.source === "header" || session.source === "content") return session;
  if (turn.tools.length > 0) return { ...session, key: `${session.key}|agent` };
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
