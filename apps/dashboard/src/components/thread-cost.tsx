import type { ThreadCost } from "@longrun/protocol";
import { useEffect, useState } from "react";
import { formatBilled } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";
import type { ThreadState } from "../state/thread-state.ts";

/**
 * What the thread's model calls cost so far (billed-equivalent tokens, OpenAI-style pricing) and what the
 * plain way of compacting would have cost on the same messages. Read again whenever a run or a compaction
 * of the thread changes state.
 */
export function ThreadCostPanel({ thread }: { thread: ThreadState }) {
  const { api } = useStore();
  const [cost, setCost] = useState<ThreadCost | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const runs = Object.values(thread.runs)
    .map((run) => `${run.id}:${run.status}`)
    .join(",");
  const compactions = Object.keys(thread.compactions).length;
  // Read again after each run or compaction change (runs, compactions): the figures are the server's.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs and compactions are the refresh keys
  useEffect(() => {
    let current = true;
    api.threads.cost(thread.threadId).then(
      (found) => {
        if (current) {
          setCost(found);
          setFailed(null);
        }
      },
      (error: unknown) => {
        if (current) setFailed(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      current = false;
    };
  }, [api, thread.threadId, runs, compactions]);
  if (failed && !cost) {
    return (
      <p className="muted small" data-testid="thread-cost-error">
        Cost not available: {failed}
      </p>
    );
  }
  if (!cost || cost.source === "none") return null;
  const saved = plainSaving(cost);
  return (
    <details className="panel thread-cost" data-testid="thread-cost" aria-label="What this thread cost">
      <summary>
        <h2>
          Cost so far: <strong data-testid="thread-cost-billed">{formatBilled(cost.billed.openai)}</strong>
        </h2>
      </summary>
      <p className="muted small">
        Billed-equivalent tokens at OpenAI-style prices: cache reads 0.1, other input 1, output 4
        (Anthropic-style {formatBilled(cost.billed.anthropic)}). {cost.calls.steps} model calls and{" "}
        {cost.calls.summaries} summary calls; {formatBilled(cost.tokens.cacheRead)} input tokens read from
        cache, {formatBilled(cost.tokens.uncached)} not, {formatBilled(cost.tokens.output)} output
        {cost.source === "estimate" ? " (estimated)" : ""}.
      </p>
      {cost.plain && saved !== null && (
        <p data-testid="thread-cost-plain">
          Input and summaries: {formatBilled(cost.compared.openai)} against{" "}
          {formatBilled(cost.plain.compared.openai)} with plain compaction (one summary at 75 %,{" "}
          {cost.plain.compactions} compaction{cost.plain.compactions === 1 ? "" : "s"}):{" "}
          <strong data-testid="thread-cost-saved">{saved}</strong>
          {cost.source !== "estimate" && (
            <span className="muted small" data-testid="thread-cost-caveat">
              {" "}
              (longrun's figure is what the provider reported, whose cache may hold prefixes other threads
              sent; plain's is estimated within this thread alone)
            </span>
          )}
        </p>
      )}
    </details>
  );
}

/** "12.3 % saved" (or "4.0 % more") against the plain strategy, OpenAI-style; null without a plain figure. */
export function plainSaving(cost: ThreadCost): string | null {
  if (!cost.saved || !cost.plain || cost.plain.compared.openai <= 0) return null;
  const share = cost.saved.openai / cost.plain.compared.openai;
  return share >= 0 ? `${(share * 100).toFixed(1)} % saved` : `${(-share * 100).toFixed(1)} % more`;
}
