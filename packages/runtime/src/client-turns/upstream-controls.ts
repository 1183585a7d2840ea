import type { ClientTurn } from "@longrun/openai-compat";
import type { UpstreamApi } from "@longrun/protocol";
import type { UpstreamControls } from "../upstream/upstream-request.ts";

/** What of a client's request goes upstream besides the conversation, by both sides' rules. */
export interface CarriedControls {
  controls: UpstreamControls;
  /** Anthropic Messages upstream: thinking with this budget; unset: no thinking asked for. */
  thinkingBudgetTokens?: number;
}

const number = (value: unknown) => (typeof value === "number" ? value : undefined);

function stopOf(value: unknown): string[] | undefined {
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) return value as string[];
  return undefined;
}

/**
 * Reasoning is carried only within a provider family, never invented across one: an OpenAI client's
 * reasoning effort (Chat `reasoning_effort`, Responses `reasoning.effort`) reaches an OpenAI upstream
 * (Chat Completions as it is, Responses as `reasoning.effort`) and is dropped before Anthropic; an
 * Anthropic client's `thinking` reaches an Anthropic upstream (its budget; `adaptive` takes the
 * configured one; `disabled` or absent: none) and is dropped before OpenAI. A client of the other
 * family gets the configured budget (LONGRUN_THINKING_BUDGET) on an Anthropic upstream, as longrun's
 * own agents do. Tool choice and sampling travel where the format has a form for them.
 */
export function carriedControls(
  turn: ClientTurn,
  api: UpstreamApi,
  configuredBudget: number | undefined,
): CarriedControls {
  const sampling = turn.sampling;
  const openAiClient = turn.api === "chat" || turn.api === "responses";
  const effort =
    openAiClient && typeof sampling.reasoning_effort === "string" ? sampling.reasoning_effort : undefined;
  const temperature = number(sampling.temperature);
  const topP = number(sampling.top_p);
  const stop = stopOf(sampling.stop);
  const controls: UpstreamControls = {
    ...(turn.toolChoice !== undefined ? { toolChoice: turn.toolChoice } : {}),
    ...(turn.parallelToolCalls !== undefined ? { parallelToolCalls: turn.parallelToolCalls } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(stop ? { stop } : {}),
    ...(effort && api !== "anthropic-messages" ? { reasoningEffort: effort } : {}),
  };
  if (api !== "anthropic-messages") return { controls };
  const budget = openAiClient ? configuredBudget : thinkingBudgetOf(turn.thinking, configuredBudget);
  return { controls, ...(budget !== undefined ? { thinkingBudgetTokens: budget } : {}) };
}

function thinkingBudgetOf(
  thinking: ClientTurn["thinking"],
  configured: number | undefined,
): number | undefined {
  if (thinking?.type === "enabled") return thinking.budgetTokens;
  if (thinking?.type === "adaptive") return configured;
  return undefined;
}
