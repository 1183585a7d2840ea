import type { WireReasoningDetail, WireToolCall } from "../wire.ts";
import { pieces, type SseEvent } from "./format-result.ts";

/** The parts of a chat completion the other formats' answers are made of. */
export interface ChatAnswer {
  id: string;
  model: string;
  content: string | null;
  toolCalls: WireToolCall[];
  reasoning: WireReasoningDetail[];
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
    completion_tokens_details: { reasoning_tokens: number };
  };
}

/** Reads a chat.completion body the chat handler answered. */
export function chatAnswerOf(json: unknown): ChatAnswer {
  const body = json as {
    id: string;
    model: string;
    choices: Array<{
      message: {
        content: string | null;
        tool_calls?: WireToolCall[];
        reasoning_details?: WireReasoningDetail[];
      };
    }>;
    usage: ChatAnswer["usage"];
  };
  const message = body.choices[0]?.message;
  return {
    id: body.id,
    model: body.model,
    content: message?.content ?? null,
    toolCalls: message?.tool_calls ?? [],
    reasoning: message?.reasoning_details ?? [],
    usage: body.usage,
  };
}

/** A chat answer as a Responses `response` object (reasoning items first, then message and calls). */
export function responseOf(
  answer: ChatAnswer,
  request: Record<string, unknown>,
  status = "completed",
): Record<string, unknown> {
  const suffix = answer.id.replace(/^chatcmpl-/, "");
  const include = Array.isArray(request.include) ? request.include : [];
  const output: unknown[] = [];
  for (const [index, detail] of answer.reasoning.entries()) {
    if (detail.type !== "reasoning.encrypted") continue;
    output.push({
      type: "reasoning",
      id: detail.id ?? `rs_${suffix}_${index}`,
      summary: [],
      // Without the include the reasoning stays on the provider's side (and is lost under store: false).
      ...(include.includes("reasoning.encrypted_content") ? { encrypted_content: detail.data } : {}),
    });
  }
  if (answer.content)
    output.push({
      type: "message",
      id: `msg_${suffix}`,
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: answer.content, annotations: [] }],
    });
  for (const call of answer.toolCalls)
    output.push({
      type: "function_call",
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.function.name,
      arguments: call.function.arguments,
      status: "completed",
    });
  const usage = answer.usage;
  return {
    id: `resp_${suffix}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    model: answer.model,
    output: status === "completed" ? output : [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    tool_choice: request.tool_choice ?? "auto",
    tools: request.tools ?? [],
    store: request.store ?? true,
    usage:
      status === "completed"
        ? {
            input_tokens: usage.prompt_tokens,
            input_tokens_details: { cached_tokens: usage.prompt_tokens_details.cached_tokens },
            output_tokens: usage.completion_tokens,
            output_tokens_details: { reasoning_tokens: usage.completion_tokens_details.reasoning_tokens },
            total_tokens: usage.prompt_tokens + usage.completion_tokens,
          }
        : null,
  };
}

/** The named events of a streamed Responses answer, each with its sequence number. */
export function responseEvents(answer: ChatAnswer, request: Record<string, unknown>): SseEvent[] {
  const events: SseEvent[] = [];
  const emit = (type: string, data: Record<string, unknown>) =>
    events.push({ event: type, data: { type, sequence_number: events.length, ...data } });
  const final = responseOf(answer, request);
  const started = responseOf(answer, request, "in_progress");
  emit("response.created", { response: started });
  emit("response.in_progress", { response: started });
  for (const [outputIndex, item] of (final.output as Array<Record<string, unknown>>).entries()) {
    const id = item.id as string;
    if (item.type === "message") {
      const text = ((item.content as Array<{ text: string }>)[0]?.text ?? "") as string;
      emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, status: "in_progress", content: [] },
      });
      const part = { type: "output_text", text: "", annotations: [] };
      emit("response.content_part.added", { item_id: id, output_index: outputIndex, content_index: 0, part });
      for (const delta of pieces(text, 24))
        emit("response.output_text.delta", {
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          delta,
          logprobs: [],
        });
      emit("response.output_text.done", {
        item_id: id,
        output_index: outputIndex,
        content_index: 0,
        text,
        logprobs: [],
      });
      emit("response.content_part.done", {
        item_id: id,
        output_index: outputIndex,
        content_index: 0,
        part: { ...part, text },
      });
    } else if (item.type === "function_call") {
      const args = item.arguments as string;
      emit("response.output_item.added", {
        output_index: outputIndex,
        item: { ...item, arguments: "", status: "in_progress" },
      });
      for (const delta of pieces(args, 64))
        emit("response.function_call_arguments.delta", { item_id: id, output_index: outputIndex, delta });
      emit("response.function_call_arguments.done", {
        item_id: id,
        output_index: outputIndex,
        arguments: args,
      });
    } else {
      emit("response.output_item.added", { output_index: outputIndex, item });
    }
    emit("response.output_item.done", { output_index: outputIndex, item });
  }
  emit("response.completed", { response: final });
  return events;
}
