import type { ToolSpec } from "@longrun/compaction";
import type { ChatMessage } from "@longrun/protocol";

/**
 * One permissive function schema per tool name the transcript calls, in order of first use.
 * Transcripts name their tools (Read, Bash, bash…) without schemas, so the replay supplies its own:
 * any JSON object is accepted, which is what the recorded arguments need.
 */
export function deriveToolSchemas(messages: readonly ChatMessage[]): ToolSpec[] {
  const names: string[] = [];
  for (const message of messages) {
    for (const call of message.tool_calls ?? []) {
      if (!names.includes(call.function.name)) names.push(call.function.name);
    }
  }
  return names.map((name) => ({
    type: "function",
    function: {
      name,
      description: `The transcript's "${name}" tool (schema not recorded; any JSON object is accepted).`,
      parameters: { type: "object", additionalProperties: true },
    },
  }));
}
