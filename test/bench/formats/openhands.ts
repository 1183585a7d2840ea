import type { ChatMessage, ToolCall } from "@longrun/protocol";

/**
 * OpenHands' event history (an `output.jsonl` row's `history`, or a saved trajectory): actions and
 * observations interleaved, each tool action carrying the model response that asked for it
 * (`tool_call_metadata.model_response`) and each observation the id of that call.
 */
export interface OpenHandsEvent {
  source?: string;
  action?: string;
  observation?: string;
  message?: string;
  content?: string;
  args?: Record<string, unknown>;
  extras?: { metadata?: { exit_code?: number; suffix?: string } | null } & Record<string, unknown>;
  tool_call_metadata?: {
    tool_call_id?: string;
    function_name?: string;
    model_response?: {
      id?: string;
      choices?: { message?: { content?: string | null; tool_calls?: RawToolCall[] | null } }[];
    };
  } | null;
}

interface RawToolCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}

/**
 * How results are written: `as-seen` appends the exit-code line OpenHands showed the model after a
 * command's output (`[The command completed with exit code N.]`); `text-only` keeps the output
 * alone, as harnesses that store only the observation's content do: no exit code anywhere.
 */
export type ResultVariant = "as-seen" | "text-only";

/** What the log itself recorded about one call, outside the text the model saw (for checkers). */
export interface CallTruth {
  toolCallId: string;
  /** The exit code OpenHands recorded, or null (editor and error observations record none). */
  exitCode: number | null;
  /** The observation was an `error` event (the call was refused or broke). */
  errorEvent: boolean;
}

export interface Converted {
  messages: ChatMessage[];
  truth: CallTruth[];
}

function toolCallsOf(raw: readonly RawToolCall[] | null | undefined): ToolCall[] {
  return (raw ?? []).flatMap((call) =>
    call.id && call.function?.name
      ? [
          {
            id: call.id,
            type: "function" as const,
            function: { name: call.function.name, arguments: call.function.arguments ?? "{}" },
          },
        ]
      : [],
  );
}

/** Converts one OpenHands history to Chat Completions messages, calls without a result dropped. */
export function fromOpenHands(history: readonly OpenHandsEvent[], variant: ResultVariant): Converted {
  const messages: ChatMessage[] = [];
  const truth: CallTruth[] = [];
  const answered = new Set<string>();
  for (const event of history) {
    const id = event.tool_call_metadata?.tool_call_id;
    if (event.observation !== undefined && id !== undefined) answered.add(id);
  }
  let lastResponse: string | undefined;
  for (const event of history) {
    const meta = event.tool_call_metadata;
    if (event.action !== undefined && meta?.model_response) {
      const responseId = meta.model_response.id ?? meta.tool_call_id;
      if (responseId === lastResponse) continue;
      lastResponse = responseId;
      const message = meta.model_response.choices?.[0]?.message;
      const calls = toolCallsOf(message?.tool_calls).filter((call) => answered.has(call.id));
      messages.push({
        role: "assistant",
        content: message?.content ?? "",
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      continue;
    }
    if (event.observation !== undefined && meta?.tool_call_id !== undefined) {
      const suffix = event.extras?.metadata?.suffix;
      const text = event.content ?? "";
      messages.push({
        role: "tool",
        tool_call_id: meta.tool_call_id,
        content: variant === "as-seen" && suffix ? `${text}${suffix}` : text,
      });
      truth.push({
        toolCallId: meta.tool_call_id,
        exitCode: event.extras?.metadata?.exit_code ?? null,
        errorEvent: event.observation === "error",
      });
      continue;
    }
    if (event.action === "system" && messages.length === 0) {
      messages.push({ role: "system", content: event.message ?? String(event.args?.content ?? "") });
    } else if (event.action === "message" && event.source === "user") {
      messages.push({ role: "user", content: event.message ?? "" });
    } else if (event.action === "message" && event.source === "agent") {
      messages.push({ role: "assistant", content: event.message ?? "" });
    }
  }
  return { messages, truth };
}
