import { type ChatMessage, contentText } from "@longrun/protocol";
import { textTokens } from "./tokens.ts";

/** Upper bound of the stand-in summary, in o200k tokens. */
export const SUMMARY_TOKEN_LIMIT = 1_000;

function clip(text: string, chars: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= chars ? flat : `${flat.slice(0, chars)}…`;
}

/**
 * BENCH STAND-IN, NOT AN LLM: a deterministic extractive "summary" of a
 * summarization request's messages — the first user text (the task), the
 * tools called with clipped arguments, the last assistant text — bounded to
 * SUMMARY_TOKEN_LIMIT tokens. It lets the bench measure fit / kept-message
 * rates after compaction without a model; it says nothing about summary quality.
 */
export function extractiveSummary(messages: readonly ChatMessage[]): string {
  const conversation = messages.filter((message) => message.role !== "system");
  const task = conversation.find((message) => message.role === "user");
  const lastAssistant = conversation.findLast(
    (message) => message.role === "assistant" && contentText(message.content).trim() !== "",
  );
  const actions: string[] = [];
  for (const message of conversation) {
    for (const call of message.tool_calls ?? []) {
      actions.push(`- ${call.function.name} ${clip(call.function.arguments, 120)}`);
    }
  }
  const lines = [
    "Task:",
    clip(task ? contentText(task.content) : "(none)", 1_200),
    `Actions so far (${actions.length}, most recent last):`,
    ...actions.slice(-30),
    "Latest assistant note:",
    clip(lastAssistant ? contentText(lastAssistant.content) : "(none)", 800),
  ];
  let summary = lines.join("\n");
  // Drop the oldest listed actions until the summary is within its bound.
  while (textTokens(summary) > SUMMARY_TOKEN_LIMIT && lines.length > 5) {
    lines.splice(3, 1);
    summary = lines.join("\n");
  }
  return textTokens(summary) > SUMMARY_TOKEN_LIMIT ? clip(summary, 3_000) : summary;
}
