import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  buildSummaryRequest,
  createTokenizer,
  estimateStoredTokens,
  planCompaction,
  repairToolPairs,
  thresholds,
  toChatMessages,
} from "@longrun/compaction";
import type { ChatMessage, StoredMessage } from "@longrun/protocol";
import { benchCorpus, callPoints } from "./corpus.ts";
import { formatMs, quantile } from "./stats.ts";

const tokenizer = createTokenizer("o200k_base");

/** Facts as the store holds them: the per-message count computed once on append. */
function storedFacts(messages: readonly ChatMessage[]): StoredMessage[] {
  return messages
    .filter((message) => message.role !== "system")
    .map((message, seq) => {
      const fact: StoredMessage = {
        id: `fact-${seq}`,
        agentId: "bench",
        seq,
        role: message.role,
        content: message.content,
        tokenCount: 0,
        createdAt: seq * 1_000,
      };
      if (message.tool_calls) fact.toolCalls = message.tool_calls;
      if (message.tool_call_id) fact.toolCallId = message.tool_call_id;
      fact.tokenCount = estimateStoredTokens(fact, tokenizer);
      return fact;
    });
}

/**
 * planCompaction per compaction on corpus prefixes with the store's per-message counts, and its
 * summary request built two ways in the same run: from the stored counts (only shortened renderings
 * tokenized) and tokenizing every rendering (as before). Results: results/plan-compaction.json.
 */
export async function runPlanCompactionBench(options: {
  budgets: number[];
  everyNth: number;
}): Promise<void> {
  const corpus = await benchCorpus();
  const rows: Record<string, number>[] = [];
  for (const budget of options.budgets) {
    const plans: number[] = [];
    const stored: number[] = [];
    const tokenized: number[] = [];
    for (const file of corpus) {
      const facts = storedFacts(file.messages);
      const points = callPoints(file.messages).filter((_, index) => index % options.everyNth === 0);
      for (const end of points) {
        const input = {
          systemPrompt: "You are a coding agent.",
          messages: facts.slice(0, Math.min(end, facts.length)),
          compaction: null,
          state: null,
          profile: { maxInputTokens: budget },
          now: 0,
          tokenizer,
        };
        let start = performance.now();
        const plan = planCompaction(input, { timeZone: "UTC" });
        plans.push(performance.now() - start);
        if (plan === null) continue;
        // The same summary request planCompaction built, with and without the stored counts.
        const wire = toChatMessages(plan.toSummarize);
        const repaired = repairToolPairs(wire);
        const messageTokens = repaired.messages.map((message, index) => {
          const source = repaired.sourceIndex[index];
          return source === null || source === undefined || message !== wire[source]
            ? null
            : (plan.toSummarize[source]?.tokenCount ?? null);
        });
        const request = {
          messages: repaired.messages,
          kind: "prefix" as const,
          previousSummary: null,
          now: 0,
          timeZone: "UTC",
          tokenizer,
          windowTokens: thresholds({ maxInputTokens: budget }).limitTokens,
          maxOutputTokens: plan.request.max_tokens,
        };
        start = performance.now();
        buildSummaryRequest(request);
        tokenized.push(performance.now() - start);
        start = performance.now();
        buildSummaryRequest({ ...request, messageTokens });
        stored.push(performance.now() - start);
      }
    }
    const row = {
      budget,
      plans: plans.length,
      planMs: quantile(plans, 0.5),
      requests: stored.length,
      storedMs: quantile(stored, 0.5),
      tokenizedMs: quantile(tokenized, 0.5),
    };
    rows.push(row);
    console.log(
      `planCompaction at ${budget}: median ${formatMs(row.planMs)} (${row.plans} prefixes); its summary request ${formatMs(row.storedMs)} from stored counts vs ${formatMs(row.tokenizedMs)} tokenizing every rendering (${(row.storedMs / row.tokenizedMs).toFixed(2)}x)`,
    );
  }
  const file = path.resolve(import.meta.dirname, "results/plan-compaction.json");
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ createdAt: new Date().toISOString(), rows }, null, 2)}\n`);
  console.log(`results written to ${path.relative(process.cwd(), file)}`);
}
