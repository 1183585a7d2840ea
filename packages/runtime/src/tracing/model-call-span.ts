import type { Usage } from "@longrun/protocol";
import { type Attributes, SpanKind, trace } from "@opentelemetry/api";
import { inSpan } from "./spans.ts";

/** What a model call's span names: the model asked for and the wire format it goes over. */
interface ModelCallTarget {
  model: string;
  /** The profile's upstream API (chat-completions, responses, anthropic-messages). */
  api?: string | undefined;
}

/** What a model call returns that its span reads: usage, and the provider's response id when kept. */
type Answered = {
  usage?: Usage | undefined;
  responseId?: string | undefined;
  providerState?: { responseId?: string | undefined } | undefined;
};

/**
 * One model call attempt as a GenAI client span (`chat <model>`, OpenTelemetry's GenAI semantic
 * conventions): model, token usage (cache read and creation included), response id; the finish reason
 * is set by the caller that reads it (`setFinishReason`). A failed attempt ends with status error.
 */
export function modelCallSpan<T extends Answered>(
  purpose: "step" | "summary",
  target: ModelCallTarget,
  call: () => Promise<T>,
): Promise<T> {
  return inSpan(
    `chat ${target.model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": target.api === "anthropic-messages" ? "anthropic" : "openai",
        "gen_ai.request.model": target.model,
        "longrun.model_call.purpose": purpose,
      },
    },
    async (span) => {
      const result = await call();
      if (span.isRecording()) span.setAttributes(answerAttributes(result));
      return result;
    },
  );
}

function answerAttributes(result: Answered): Attributes {
  const usage = result.usage;
  const responseId = result.responseId ?? result.providerState?.responseId;
  return {
    ...(responseId ? { "gen_ai.response.id": responseId } : {}),
    ...(usage
      ? {
          "gen_ai.usage.input_tokens": usage.promptTokens,
          "gen_ai.usage.output_tokens": usage.completionTokens,
          ...(usage.cachedTokens !== undefined
            ? { "gen_ai.usage.cache_read.input_tokens": usage.cachedTokens }
            : {}),
          ...(usage.cacheWriteTokens !== undefined
            ? { "gen_ai.usage.cache_creation.input_tokens": usage.cacheWriteTokens }
            : {}),
          ...(usage.reasoningTokens !== undefined
            ? { "gen_ai.usage.reasoning.output_tokens": usage.reasoningTokens }
            : {}),
        }
      : {}),
  };
}

/** Sets the finish reason of the model call span in force (no-op outside one, or with tracing off). */
export function setFinishReason(reason: string | null | undefined): void {
  if (!reason) return;
  trace.getActiveSpan()?.setAttribute("gen_ai.response.finish_reasons", [reason]);
}
