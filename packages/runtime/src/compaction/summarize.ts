import type { CompactionPlan } from "@longrun/compaction";
import type { AgentContext } from "../context/agent-context.ts";
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
): Promise<{ text: string } | { outcome: Extract<CompactionOutcome, { kind: "failed" }> }> {
  const { deps, job, where } = attempt;
  let text: string;
  try {
    text = await withProviderRetry(
      () =>
        callSummarizer(deps.model, {
          model: plan.request.model ?? context.profile.model,
          messages: plan.request.messages,
          // A continuation: the agent's own tools, for the cache; tool_choice "none" keeps them uncalled.
          ...(plan.request.tools ? { tools: plan.request.tools, toolChoice: plan.request.tool_choice } : {}),
          maxOutputTokens: plan.request.max_tokens,
          headers: deps.modelHeaders?.(job.agentId),
          signal: job.signal,
        }),
      // Summary failures are counted by the breaker; only transient overload is retried here.
      { maxAttempts: 2, baseMs: deps.retry?.baseMs, maxMs: deps.retry?.maxMs, signal: job.signal },
    );
  } catch (error) {
    // A cancel is not the summarizer's failure: the breaker does not count it.
    if (job.signal.aborted) throw error;
    const reason = `summary failed: ${error instanceof Error ? error.message : String(error)}`;
    const failure = await deps.breaker.recordFailure(job.agentId);
    if (failure.opened) {
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
    await deps.events.emit({ ...where, type: "breaker.closed", data: { failures: success.failures } });
  }
  return { text };
}
