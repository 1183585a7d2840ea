import type Anthropic from "@anthropic-ai/sdk";
import { ANTHROPIC_REASONING_FORMAT } from "@longrun/compaction";
import type { AnswerEvent } from "@longrun/openai-compat";
import type { ReasoningDetail } from "@longrun/protocol";

/** A thinking or redacted_thinking block as longrun keeps it: byte-exact, with its signature. */
export function thinkingDetailOf(
  block: Anthropic.Messages.ThinkingBlock | Anthropic.Messages.RedactedThinkingBlock,
): ReasoningDetail {
  return block.type === "thinking"
    ? {
        type: "reasoning.text",
        text: block.thinking,
        signature: block.signature,
        format: ANTHROPIC_REASONING_FORMAT,
      }
    : { type: "reasoning.encrypted", data: block.data, format: ANTHROPIC_REASONING_FORMAT };
}

type OpenBlock =
  | { kind: "thinking"; thinking: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "tool"; index: number; streamed: boolean; input: unknown }
  | { kind: "other" };

/**
 * Turns an Anthropic Messages stream's events into answer events as they come: text deltas, each
 * tool_use when its block opens (numbered in order) and its input_json deltas, each thinking block
 * whole when it closes (its signature comes last).
 */
export function createAnthropicEventReader() {
  const blocks = new Map<number, OpenBlock>();
  let calls = 0;
  return (event: Anthropic.Messages.RawMessageStreamEvent): AnswerEvent[] => {
    if (event.type === "content_block_start") {
      const block = event.content_block;
      if (block.type === "thinking")
        blocks.set(event.index, { kind: "thinking", thinking: block.thinking, signature: block.signature });
      else if (block.type === "redacted_thinking")
        blocks.set(event.index, { kind: "redacted", data: block.data });
      else if (block.type === "tool_use") {
        const index = calls++;
        blocks.set(event.index, { kind: "tool", index, streamed: false, input: block.input });
        return [{ type: "tool_call", index, id: block.id, name: block.name }];
      } else if (block.type === "text" && block.text) {
        blocks.set(event.index, { kind: "other" });
        return [{ type: "text", delta: block.text }];
      } else blocks.set(event.index, { kind: "other" });
      return [];
    }
    if (event.type === "content_block_delta") {
      const open = blocks.get(event.index);
      const delta = event.delta;
      if (delta.type === "text_delta") return [{ type: "text", delta: delta.text }];
      if (delta.type === "thinking_delta" && open?.kind === "thinking") open.thinking += delta.thinking;
      else if (delta.type === "signature_delta" && open?.kind === "thinking")
        open.signature += delta.signature;
      else if (delta.type === "input_json_delta" && open?.kind === "tool" && delta.partial_json) {
        open.streamed = true;
        return [{ type: "tool_arguments", index: open.index, delta: delta.partial_json }];
      }
      return [];
    }
    if (event.type === "content_block_stop") {
      const open = blocks.get(event.index);
      if (open?.kind === "thinking")
        return [
          {
            type: "reasoning",
            state: {
              reasoningDetails: [
                thinkingDetailOf({ type: "thinking", thinking: open.thinking, signature: open.signature }),
              ],
            },
          },
        ];
      if (open?.kind === "redacted")
        return [
          {
            type: "reasoning",
            state: { reasoningDetails: [thinkingDetailOf({ type: "redacted_thinking", data: open.data })] },
          },
        ];
      // A tool_use whose input came whole with its start (no deltas): told whole, as the fact has it.
      if (open?.kind === "tool" && !open.streamed)
        return [{ type: "tool_arguments", index: open.index, delta: JSON.stringify(open.input ?? {}) }];
    }
    return [];
  };
}
