import type { ChatMessage } from "@longrun/protocol";
import { SUMMARY_HEADER } from "../summary-message.ts";

/** User messages that are not the user speaking: harness reminders, demonstrations, `/compact`. */
const NOT_THE_USER = new Set(["meta", "demonstration", "compact_command"]);

/**
 * Whether a user message is something the user said (a task, a correction, a decision) rather than
 * a harness reminder, a demonstration, a compaction record or a runtime-inserted summary/restoration.
 */
export function isWorkingStateNote(message: ChatMessage, text: string): boolean {
  if (message.name !== undefined && NOT_THE_USER.has(message.name)) return false;
  const trimmed = text.trimStart();
  if (trimmed.length === 0) return false;
  return !trimmed.startsWith(SUMMARY_HEADER) && !trimmed.startsWith("[Restored after compaction");
}
