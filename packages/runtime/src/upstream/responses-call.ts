import { toResponsesInput } from "@longrun/compaction";
import type { NewMessage, ReasoningDetail, ToolCall, Usage } from "@longrun/protocol";
import type OpenAI from "openai";
import { withModelDeadline } from "../step/model-deadline.ts";
import { createResponsesEventReader, reasoningDetailsOf } from "./responses-stream.ts";
import { functionTools, type StreamedAnswer, type UpstreamCall } from "./upstream-request.ts";

type Response = OpenAI.Responses.Response;

/** Responses usage in longrun's terms (input includes the cached part, output the reasoning). */
export function usageFromResponses(usage: Response["usage"]): Usage | undefined {
  if (!usage) return undefined;
  return {
    promptTokens: usage.input_tokens,
    completionTokens: usage.output_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens ?? 0,
    cachedTokens: usage.input_tokens_details?.cached_tokens ?? 0,
    totalTokens: usage.total_tokens,
  };
}

/**
 * The assistant fact of a Responses answer: its reasoning items kept as the provider returned them
 * (summary parts and encrypted content, tagged with their format and item id) apart in providerState.
 */
export function messageFromResponse(response: Response): NewMessage & { role: "assistant" } {
  const details: ReasoningDetail[] = [];
  const toolCalls: ToolCall[] = [];
  let text = "";
  for (const item of response.output) {
    if (item.type === "reasoning") {
      details.push(...reasoningDetailsOf(item));
    } else if (item.type === "message") {
      for (const part of item.content) if (part.type === "output_text") text += part.text;
    } else if (item.type === "function_call") {
      toolCalls.push({
        id: item.call_id,
        type: "function",
        function: { name: item.name, arguments: item.arguments },
      });
    }
  }
  const usage = usageFromResponses(response.usage);
  return {
    role: "assistant",
    content: text.length > 0 ? text : null,
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
    ...(usage ? { usage } : {}),
    ...(details.length > 0 || response.id
      ? {
          providerState: {
            ...(details.length > 0 ? { reasoningDetails: details } : {}),
            ...(response.id ? { responseId: response.id } : {}),
          },
        }
      : {}),
  };
}

/** A Chat Completions tool choice in Responses form ("auto" | "none" | "required" | {type: "function", name}). */
function toolChoiceOf(choice: unknown): OpenAI.Responses.ResponseCreateParams["tool_choice"] | undefined {
  if (choice === "auto" || choice === "none" || choice === "required") return choice;
  const name = (choice as { function?: { name?: unknown } } | undefined)?.function?.name;
  return typeof name === "string" ? { type: "function", name } : undefined;
}

/** The gateway client's controls a Responses request has a form for (no `stop`: Responses has none). */
function controlsOf(controls: UpstreamCall["controls"]) {
  if (!controls) return {};
  return {
    ...(controls.temperature !== undefined ? { temperature: controls.temperature } : {}),
    ...(controls.topP !== undefined ? { top_p: controls.topP } : {}),
    ...(controls.parallelToolCalls !== undefined ? { parallel_tool_calls: controls.parallelToolCalls } : {}),
    ...(controls.reasoningEffort
      ? { reasoning: { effort: controls.reasoningEffort as OpenAI.ReasoningEffort } }
      : {}),
  };
}

function requestBody(call: UpstreamCall, summary: boolean) {
  const toolChoice = summary ? "none" : toolChoiceOf(call.controls?.toolChoice);
  const tools = functionTools(call.tools).map((tool) => ({
    type: "function" as const,
    strict: false,
    ...tool,
  }));
  return {
    model: call.model,
    input: toResponsesInput(call.messages) as OpenAI.Responses.ResponseInput,
    // Nothing is kept on the provider's side: every request carries its whole chain.
    store: false,
    include: ["reasoning.encrypted_content" as const],
    ...(tools.length > 0 ? { tools, ...(toolChoice ? { tool_choice: toolChoice } : {}) } : {}),
    ...(call.maxOutputTokens ? { max_output_tokens: call.maxOutputTokens } : {}),
    ...(call.cacheKey ? { prompt_cache_key: call.cacheKey } : {}),
    ...(summary ? {} : controlsOf(call.controls)),
  };
}

/** One streaming OpenAI Responses call (`store: false`, encrypted reasoning inline); the answer's fact. */
export async function callResponses(client: OpenAI, call: UpstreamCall): Promise<NewMessage> {
  return (await streamResponses(client, call)).message;
}

/**
 * One streaming Responses call: `onOpen` once the provider accepted it, each piece to `onEvent` (and
 * text to `onDelta`) as it streams; the fact and why the model stopped.
 */
export async function streamResponses(client: OpenAI, call: UpstreamCall): Promise<StreamedAnswer> {
  return withModelDeadline(call.timeouts, call.signal, async (deadline) => {
    const stream = await client.responses.create(
      { ...requestBody(call, false), stream: true },
      { signal: deadline.signal, headers: call.headers },
    );
    call.onOpen?.();
    const read = createResponsesEventReader();
    let final: Response | undefined;
    for await (const event of stream) {
      deadline.answered();
      if (event.type === "response.output_text.delta") call.onDelta?.(event.delta);
      else if (event.type === "response.completed") final = event.response;
      else if (event.type === "response.failed" || event.type === "response.incomplete")
        throw new Error(
          `the response ended ${event.response.status}: ${event.response.error?.message ?? ""}`,
        );
      if (call.onEvent) for (const answerEvent of read(event)) call.onEvent(answerEvent);
    }
    // The client's stream ends quietly when its signal aborts: a cut-off answer must not pass as whole.
    if (deadline.signal.aborted) throw deadline.signal.reason;
    if (!final) throw new Error("the response stream ended without response.completed");
    const message = messageFromResponse(final);
    return { message, finishReason: message.toolCalls?.length ? "tool_calls" : "stop" };
  });
}

/** A non-streaming Responses call for a summary (tools listed, not callable); its text and usage. */
export async function summarizeWithResponses(
  client: OpenAI,
  call: UpstreamCall & { timeoutMs?: number },
): Promise<{ text: string; usage: Usage | undefined }> {
  const timeouts =
    call.timeoutMs === undefined ? undefined : { firstByteMs: call.timeoutMs, totalMs: call.timeoutMs };
  const response = await withModelDeadline(timeouts, call.signal, (deadline) =>
    client.responses.create(requestBody(call, true), { signal: deadline.signal, headers: call.headers }),
  );
  const text = response.output
    .flatMap((item) => (item.type === "message" ? item.content : []))
    .map((part) => (part.type === "output_text" ? part.text : ""))
    .join("");
  if (text.trim().length === 0) throw new Error("summarizer returned no text");
  return { text, usage: usageFromResponses(response.usage) };
}
