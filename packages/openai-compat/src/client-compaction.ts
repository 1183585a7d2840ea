import type { ClientTurn } from "./client-turn.ts";
import { textOf } from "./content.ts";
import type { HeaderReader } from "./conversation-key.ts";

/** The opening of Codex's compaction prompt (a user message). */
export const CODEX_COMPACTION_PROMPT = "You are performing a CONTEXT CHECKPOINT COMPACTION";
/** The opening of opencode's compaction agent prompt (its system prompt). */
export const OPENCODE_COMPACTION_PROMPT = "You are a context summarization agent";

/** Which client's compaction shape a request has ("generic": the shape, but no known client's words). */
export type CompactingClient = "codex" | "opencode" | "pi" | "snapshot" | "claude-code" | "generic";

/** A client asking for its own summary of the conversation, and which client it is. */
export interface ClientCompaction {
  client: CompactingClient;
  /**
   * Items of the turn that belong to the conversation (the compaction instruction left out); empty
   * when the client sent its conversation as text inside the instruction (opencode, pi).
   */
  conversationItems: ClientTurn["items"];
  /** The conversation as the client wrote it into its request, when it did (to find its thread). */
  transcript?: string;
}

/** Asks for a summary, compaction or snapshot of the conversation (in either word order). */
const SUMMARY_OF_CONVERSATION =
  /\b(summar\w*|compact\w*|condens\w*|checkpoint|snapshot|handoff)\b[^\n]{0,120}\b(conversation|history|session|context|transcript|messages)\b|\b(conversation|history|session|transcript)\b[^\n]{0,60}\bsummar\w*/i;
/** Tells the model to answer with text only although tools are offered (Claude Code keeps its tools). */
const TEXT_ONLY = /\b(text only|do not (call|use) (any )?tools|without (calling|using) (any )?tools)\b/i;
/** Gemini CLI and qwen-code: their compression prompt asks for an XML state snapshot. */
const STATE_SNAPSHOT = /<state_snapshot>/;
/** pi (and others) wrap a serialized conversation in `<conversation>` tags (found with indexOf: bodies are large). */
function wrapsConversation(text: string): boolean {
  const open = text.indexOf("<conversation>");
  return open >= 0 && text.lastIndexOf("</conversation>") > open;
}
/** Lines of a conversation written out as text ("[User]: …", "Assistant: …"). */
const TRANSCRIPT_TURN = /^[ \t]*\[?(user|assistant|human|ai|model|tool( call| result)?)\]?[ \t]*:/gim;
/**
 * Claude Code's compaction instructions (2.1.197): the whole conversation ("…of the conversation so
 * far"), the part after a kept prefix ("…of the RECENT portion…") and the part before a kept tail,
 * its "up_to" form ("…of this conversation. This summary will be placed at the start…").
 */
const CLAUDE_CODE_SUMMARY =
  /create a detailed summary of (the conversation|the recent portion|this conversation)\b/i;

function codexRequestKind(header: HeaderReader): string | undefined {
  const metadata = header("x-codex-turn-metadata");
  if (!metadata) return undefined;
  try {
    const parsed = JSON.parse(metadata) as { request_kind?: unknown };
    return typeof parsed.request_kind === "string" ? parsed.request_kind : undefined;
  } catch {
    // Metadata that is not JSON: the request kind is looked for in its text.
    return /"request_kind"\s*:\s*"compaction"/.test(metadata) ? "compaction" : undefined;
  }
}

function offersNoTools(turn: ClientTurn): boolean {
  return turn.tools.length === 0 || turn.toolChoice === "none";
}

/** Which client's words a compaction instruction uses, when it is one of the known ones. */
function knownClient(system: string, instruction: string): CompactingClient | null {
  if (instruction.trimStart().startsWith(CODEX_COMPACTION_PROMPT)) return "codex";
  if (system.trimStart().startsWith(OPENCODE_COMPACTION_PROMPT)) return "opencode";
  if (STATE_SNAPSHOT.test(instruction) || STATE_SNAPSHOT.test(system)) return "snapshot";
  if (wrapsConversation(instruction)) return "pi";
  if (CLAUDE_CODE_SUMMARY.test(instruction)) return "claude-code";
  return null;
}

/**
 * Recognizes a client's own compaction request by its shape rather than by one client's wording: the
 * last user message (or a tool-less request's system prompt) asks for a summary, checkpoint or
 * snapshot of the conversation, and the request wants text back — it offers no tools, says so
 * (Claude Code keeps its tools for the prompt cache), or is a Codex compaction by its turn metadata.
 * The conversation is either the items before the instruction (Codex, Claude Code, Gemini-style
 * snapshots) or text inside the instruction (opencode's and pi's transcripts).
 */
export function detectClientCompaction(turn: ClientTurn, header: HeaderReader): ClientCompaction | null {
  // Asked for in so many words (Codex's compaction_trigger item or its /responses/compact): every item
  // is conversation, there is no instruction to leave out.
  if (turn.compactionRequested) return { client: "codex", conversationItems: turn.items };
  const lastUser = turn.items.findLastIndex((item) => item.role === "user");
  const instruction = lastUser >= 0 ? textOf(turn.items[lastUser]!.content) : "";
  const client = knownClient(turn.system, instruction);
  const wantsText =
    offersNoTools(turn) || TEXT_ONLY.test(instruction) || codexRequestKind(header) === "compaction";
  if (!wantsText) return null;
  const asks =
    client !== null ||
    SUMMARY_OF_CONVERSATION.test(instruction.slice(-4_000)) ||
    (offersNoTools(turn) && SUMMARY_OF_CONVERSATION.test(turn.system.slice(0, 4_000)));
  if (!asks) return null;
  const before = turn.items.filter((_, index) => index !== lastUser);
  // A conversation sent as text: one message holding it, or an instruction that wraps it in tags.
  const asText = client === "opencode" || wrapsConversation(instruction) || before.length === 0;
  if (asText) {
    // Without a known client's words, only a written-out conversation is one (not any single question).
    if (client === null && (instruction.match(TRANSCRIPT_TURN)?.length ?? 0) < 2) return null;
    return { client: client ?? "generic", conversationItems: [], transcript: instruction };
  }
  // A lone question after a system prompt is not a compaction of anything (a title or side request).
  if (client === null && !before.some((item) => item.role === "assistant" || item.role === "tool")) {
    return null;
  }
  return { client: client ?? "generic", conversationItems: before };
}
