import {
  type CompactionPlan,
  callCost,
  estimateMessageTokens,
  estimateToolsTokens,
  requestPartsOf,
  type Tokenizer,
} from "@longrun/compaction";
import { type CallCost, errorFields, type Usage } from "@longrun/protocol";
import type { AgentContext } from "../context/agent-context.ts";
import { timedModelCall } from "../runtime-metrics.ts";
import { callSummarizer } from "../step/model-call.ts";
import { withProviderRetry } from "../step/provider-retry.ts";
import type { CompactionAttempt, CompactionOutcome } from "./compaction-attempt.ts";

/**
 * The summary call of a compaction: the plan's sanitized request — the agent's own request continued
 * (same system prompt, tools and messages, so the provider's prefix cache serves it) with the
 * instruction appended, or a standalone request when that would not fit; tools are never called. Its failures count on the
 * agent's breaker (and open it, with an event); a cancel does not. Returns the text, or the outcome
 * that ends the attempt.
 */
export async function summarize(
  attempt: CompactionAttempt,
  plan: CompactionPlan,
  context: AgentContext,
): Promise<{ text: string; cost: CallCost } | { outcome: Extract<CompactionOutcome, { kind: "failed" }> }> {
  const { deps, job, where } = attempt;
  let answer: { text: string; usage: Usage | undefined };
  try {
    answer = await withProviderRetry(
      () =>
        timedModelCall(deps.metrics, "summary", () =>
          callSummarizer(deps.model, {
            model: plan.request.model ?? context.profile.model,
            messages: plan.request.messages,
            // A continuation: the agent's own tools, for the cache; tool_choice "none" keeps them uncalled.
            ...(plan.request.tools
              ? { tools: plan.request.tools, toolChoice: plan.request.tool_choice }
              : {}),
            maxOutputTokens: plan.request.max_tokens,
            headers: deps.modelHeaders?.(job.agentId),
            signal: job.signal,
            timeoutMs: context.profile.modelTimeoutMs,
            api: context.profile.upstreamApi,
            anthropic: deps.anthropic,
          }),
        ),
      // Summary failures are counted by the breaker; only transient overload is retried here.
      { maxAttempts: 2, baseMs: deps.retry?.baseMs, maxMs: deps.retry?.maxMs, signal: job.signal },
    );
  } catch (error) {
    // A cancel is not the summarizer's failure: the breaker does not count it.
    if (job.signal.aborted) throw error;
    const reason = `summary failed: ${error instanceof Error ? error.message : String(error)}`;
    const failure = await deps.breaker.recordFailure(job.agentId);
    deps.log.warn(
      { ...errorFields(error), failures: failure.failures, breaker: failure.state },
      "compaction summary failed",
    );
    if (failure.opened) {
      deps.log.warn(
        { breaker: "open", failures: failure.failures, cooldownMs: failure.cooldownMs },
        "compaction breaker opened: summaries paused for the cooldown",
      );
      await deps.events.emit({
        ...where,
        type: "breaker.opened",
        data: {
          failures: failure.failures,
          cooldownMs: failure.cooldownMs,
          openUntil: failure.openUntil ?? deps.now(),
        },
      });
    }
    await attempt.reportFailure(reason, failure.state, false);
    const retryAt = failure.state === "closed" ? undefined : (failure.openUntil ?? undefined);
    return { outcome: { kind: "failed", reason, retryAt } };
  }
  const success = await deps.breaker.recordSuccess(job.agentId);
  if (success.closed) {
    deps.log.info(
      { breaker: "closed", failures: success.failures },
      "compaction breaker closed: summaries succeed again",
    );
    await deps.events.emit({ ...where, type: "breaker.closed", data: { failures: success.failures } });
  }
  return { text: answer.text, cost: summaryCallCost(plan, answer.usage, deps.tokenizer) };
}

/**
 * What the summary call cost: the provider's cached tokens when it reports them; else a continuation's
 * shared prefix (header and the messages identical to the agent's request) read from cache and the
 * rest written, a standalone request written whole.
 */
function summaryCallCost(plan: CompactionPlan, usage: Usage | undefined, tokenizer: Tokenizer): CallCost {
  return callCost(usage, () => {
    const { request } = plan;
    const messageTokens = request.messages.map((message) => estimateMessageTokens(message, tokenizer));
    const toolsTokens = request.tools ? estimateToolsTokens(request.tools, tokenizer) : 0;
    const parts = requestPartsOf(request.messages, messageTokens, request.tools ?? [], toolsTokens);
    const system = request.messages[0]?.role === "system" ? 1 : 0;
    const shared = request.form === "continuation" ? 1 + (request.cachedPrefixMessages ?? 0) - system : 0;
    return { partTokens: parts.partTokens, sharedParts: shared };
  });
}
