import type { Answer } from "./answer.ts";
import { textOf } from "./content.ts";
import { usageToResponses } from "./usage.ts";

/**
 * The body of `POST /v1/responses/compact`: the history that replaces the client's, which Codex takes
 * verbatim as its new input. longrun keeps the whole conversation and compacts its own projection, so
 * the replacement is one user message holding longrun's checkpoint (its marker names the thread and
 * where the log continues) — no encrypted `compaction` item that only OpenAI could read.
 */
export function compactionBody(identity: { id: string; createdAt: number }, answer: Answer) {
  return {
    id: identity.id,
    object: "response.compaction",
    created_at: identity.createdAt,
    output: [
      {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: textOf(answer.message.content) }],
      },
    ],
    ...(answer.usage ? { usage: usageToResponses(answer.usage) } : {}),
  };
}
