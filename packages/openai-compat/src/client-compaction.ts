import type { ClientTurn } from "./client-turn.ts";
import { textOf } from "./content.ts";
import type { HeaderReader } from "./conversation-key.ts";

/** The opening of Codex's compaction prompt (a user message). */
export const CODEX_COMPACTION_PROMPT = "You are performing a CONTEXT CHECKPOINT COMPACTION";
/** The opening of opencode's compaction agent prompt (its system prompt). */
export const OPENCODE_COMPACTION_PROMPT = "You are a context summarization agent";

/** A client asking for its own summary of the conversation, and which client it is. */
export interface ClientCompaction {
  client: "codex" | "opencode";
  /** Items of the turn that belong to the conversation (the compaction instruction left out). */
  conversationItems: ClientTurn["items"];
}

function codexRequestKind(header: HeaderReader): string | undefined {
  const metadata = header("x-codex-turn-metadata");
  if (!metadata) return undefined;
  try {
    const parsed = JSON.parse(metadata) as { request_kind?: unknown };
    return typeof parsed.request_kind === "string" ? parsed.request_kind : undefined;
  } catch {
    return /"request_kind"\s*:\s*"compaction"/.test(metadata) ? "compaction" : undefined;
  }
}

/**
 * Recognizes a client's own compaction request. Codex: the last user message opens with its
 * checkpoint prompt and the request is a compaction (`x-codex-turn-metadata` says
 * `request_kind: compaction`, or it offers no tools). opencode: the system prompt is its
 * summarization agent's.
 */
export function detectClientCompaction(turn: ClientTurn, header: HeaderReader): ClientCompaction | null {
  const lastUser = turn.items.findLastIndex((item) => item.role === "user");
  const lastUserText = lastUser >= 0 ? textOf(turn.items[lastUser]!.content).trimStart() : "";
  if (lastUserText.startsWith(CODEX_COMPACTION_PROMPT)) {
    if (codexRequestKind(header) === "compaction" || turn.tools.length === 0) {
      return { client: "codex", conversationItems: turn.items.filter((_, index) => index !== lastUser) };
    }
  }
  if (turn.system.trimStart().startsWith(OPENCODE_COMPACTION_PROMPT)) {
    return { client: "opencode", conversationItems: [] };
  }
  return null;
}
