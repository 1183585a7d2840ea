import type { ChatMessage } from "@longrun/protocol";
import { ESTIMATE_PAD } from "./pressure.ts";
import type { Projection } from "./project.ts";

/** What must reach the model verbatim whatever is shrunk, and its size. */
export interface VerbatimPart {
  /** Indexes into the projection's messages. */
  indexes: number[];
  /** Padded estimate of those messages plus the tool definitions (same scale as Projection.tokens). */
  tokens: number;
}

/** Index of the first message of the active tool loop (the trailing call and its results), or -1. */
function activeLoopStart(messages: readonly ChatMessage[]): number {
  let index = messages.length - 1;
  if (messages[index]?.role !== "tool") return -1;
  while (index >= 0 && messages[index]?.role === "tool") index--;
  return messages[index]?.role === "assistant" && messages[index]?.tool_calls?.length ? index : -1;
}

/**
 * The verbatim part of a projection (I3): the system prompt, the latest user message (raw or
 * pinned) and the active tool loop, plus the tool definitions. When this alone is over the limit,
 * no summary, ledger or restoration can make the request fit.
 */
export function verbatimPart(
  projection: Pick<Projection, "messages" | "marks" | "messageTokens" | "toolsTokens">,
): VerbatimPart {
  const { messages, marks } = projection;
  const indexes = new Set<number>();
  marks.forEach((mark, index) => {
    if (mark === "system") indexes.add(index);
  });
  for (let index = messages.length - 1; index >= 0; index--) {
    const mark = marks[index];
    if (messages[index]?.role === "user" && (mark === "raw" || mark === "pinned")) {
      indexes.add(index);
      break;
    }
  }
  const loop = activeLoopStart(messages);
  if (loop >= 0) for (let index = loop; index < messages.length; index++) indexes.add(index);
  const sorted = [...indexes].sort((a, b) => a - b);
  const sum = sorted.reduce((total, index) => total + (projection.messageTokens[index] ?? 0), 0);
  return { indexes: sorted, tokens: Math.ceil((sum + projection.toolsTokens) * ESTIMATE_PAD) };
}
