import { pieces, type SseEvent } from "./format-result.ts";
import type { ChatAnswer } from "./responses-out.ts";
import { redactThinking, signThinking } from "./thinking-signature.ts";

type Block = Record<string, unknown>;

/** What the sim thinks before an answer: a few sentences naming what it is about to do. */
function thinkingText(answer: ChatAnswer): string {
  const plan = answer.toolCalls.map((call) => call.function.name).join(", ") || "writing the answer";
  return `Looking at what I know so far (${answer.id}); next: ${plan}.`;
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** A chat answer as an Anthropic message: thinking first (when asked for), text, tool_use blocks. */
export function anthropicMessageOf(
  answer: ChatAnswer,
  thinking: boolean,
  secret: string,
): Record<string, unknown> {
  const content: Block[] = [];
  let thinkingTokens = 0;
  if (thinking) {
    const text = thinkingText(answer);
    thinkingTokens = Math.ceil(text.length / 4);
    content.push({ type: "thinking", thinking: text, signature: signThinking(secret, text) });
    // Every fifth answer also has a redacted block, as real models' flagged reasoning does.
    if (Number(/(\d+)$/.exec(answer.id)?.[1] ?? 1) % 5 === 0)
      content.push({ type: "redacted_thinking", data: redactThinking(secret, `${text} (redacted)`) });
  }
  if (answer.content) content.push({ type: "text", text: answer.content, citations: null });
  for (const call of answer.toolCalls)
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: parseInput(call.function.arguments),
    });
  const cached = answer.usage.prompt_tokens_details.cached_tokens;
  return {
    id: `msg_${answer.id.replace(/^chatcmpl-/, "")}`,
    type: "message",
    role: "assistant",
    model: answer.model,
    content,
    stop_reason: answer.toolCalls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: {
      input_tokens: answer.usage.prompt_tokens - cached,
      cache_read_input_tokens: cached,
      cache_creation_input_tokens: 0,
      output_tokens: answer.usage.completion_tokens + thinkingTokens,
    },
  };
}

/** The named events of a streamed Anthropic message (blocks opened, filled by deltas, closed). */
export function anthropicEvents(message: Record<string, unknown>): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, ...data } });
  const usage = message.usage as Record<string, number>;
  emit("message_start", {
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  for (const [index, block] of (message.content as Block[]).entries()) {
    if (block.type === "thinking") {
      emit("content_block_start", {
        index,
        content_block: { type: "thinking", thinking: "", signature: "" },
      });
      for (const piece of pieces(String(block.thinking), 32))
        emit("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } });
      emit("content_block_delta", { index, delta: { type: "signature_delta", signature: block.signature } });
    } else if (block.type === "redacted_thinking") {
      emit("content_block_start", { index, content_block: block });
    } else if (block.type === "text") {
      emit("content_block_start", { index, content_block: { type: "text", text: "", citations: null } });
      for (const piece of pieces(String(block.text), 24))
        emit("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
    } else {
      emit("content_block_start", { index, content_block: { ...block, input: {} } });
      for (const piece of pieces(JSON.stringify(block.input), 64))
        emit("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    emit("content_block_stop", { index });
  }
  emit("message_delta", {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  emit("message_stop", {});
  return events;
}
