import type { SummaryRequest } from "@longrun/compaction";
import { callSummarizer } from "@longrun/runtime";
import { simModelName, startSimModel } from "@longrun/sim-model";
import OpenAI from "openai";

/** Turns a summary request into the summary text (text out; a continuation's tools are not called). */
export type Summarizer = (request: SummaryRequest) => Promise<string>;

/** A summarizer served by a model endpoint, and how to stop it. */
export interface ReplaySummarizer {
  summarize: Summarizer;
  /** The model string summary requests are sent with. */
  model: string;
  /** Base URL of the endpoint (`…/v1`). */
  baseURL: string;
  close(): Promise<void>;
}

/** A summarizer on an OpenAI-compatible endpoint, called as the runtime calls it (callSummarizer). */
export function endpointSummarizer(options: { baseURL: string; apiKey?: string; model: string }): Summarizer {
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey ?? "sim", maxRetries: 1 });
  return async (request) =>
    (
      await callSummarizer(client, {
        model: options.model,
        messages: request.messages,
        ...(request.tools ? { tools: request.tools, toolChoice: request.tool_choice } : {}),
        maxOutputTokens: request.max_tokens,
      })
    ).text;
}

/**
 * Starts the strict sim model in this process (free port) and summarizes through it with the official
 * `openai` client. Its window is the replay's, so an oversized summary request is rejected, not absorbed.
 */
export async function startSimSummarizer(maxInputTokens: number): Promise<ReplaySummarizer> {
  const server = await startSimModel({ maxInputTokens, logLimit: 50, logBodies: false });
  const model = simModelName({ ctx: maxInputTokens });
  return {
    summarize: endpointSummarizer({ baseURL: server.baseURL, model }),
    model,
    baseURL: server.baseURL,
    close: () => server.close(),
  };
}
