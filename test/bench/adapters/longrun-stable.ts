import {
  compactionFields,
  type ProjectionInput,
  type ProjectionMemo,
  planCompaction,
  project,
  ReductionCache,
  verifyProjection,
} from "@longrun/compaction";
import type { CompactionEvent, ModelProfile } from "@longrun/protocol";
import { extractiveSummary } from "../extractive-summarizer.ts";
import type { AdapterResult, BenchAdapter } from "./adapter.ts";
import { AGENT_ID, EPOCH, STEP_MS, tokenizer, toStored } from "./longrun.ts";

/**
 * longrun as the runtime runs it now: cache-stable projection, the memo of the previous call (what
 * it sent) handed to the next, LLM compaction by the stand-in summarizer as in the other sequential
 * adapter (or none: deterministic stages only, as the deterministic adapter). Timed: the project()
 * of each call point, given the previous call's memo.
 */
export function createLongrunStableAdapter(withCompaction: boolean): BenchAdapter {
  return {
    name: withCompaction
      ? "longrun project, incremental cache-stable (+ compaction)"
      : "longrun project, incremental cache-stable (deterministic)",
    targetsBudget: true,
    sequential: true,
    prepare(messages, budget) {
      const transcript = toStored(messages);
      const profile: Partial<ModelProfile> = { model: "bench", maxInputTokens: budget };
      let event: CompactionEvent | null = null;
      let memo: ProjectionMemo | null = null;
      const reductions = new ReductionCache();
      let events = 0;
      const inputAt = (end: number, compaction: CompactionEvent | null): ProjectionInput => {
        const factsEnd = end - transcript.offset;
        const from = compaction === null ? 0 : Math.min(compaction.cutoffIndex, factsEnd);
        return {
          systemPrompt: transcript.systemPrompt,
          messages: transcript.facts.slice(from, factsEnd),
          compaction,
          state: null,
          profile,
          now: EPOCH + factsEnd * STEP_MS,
          tokenizer,
          reductions,
        };
      };
      return {
        async call(end): Promise<AdapterResult> {
          const input = inputAt(end, event);
          const start = performance.now();
          const first = project({ ...input, memo });
          const ms = performance.now() - start;
          if (!first.needsCompaction || !withCompaction) {
            memo = first.memo ?? null;
            return { output: first.messages, ms, needsCompaction: first.needsCompaction, compacted: false };
          }
          const planStart = performance.now();
          const plan = planCompaction(input, { timeZone: "UTC" });
          const planMs = performance.now() - planStart;
          if (plan === null) {
            memo = first.memo ?? null;
            return {
              output: first.messages,
              ms,
              needsCompaction: true,
              compacted: false,
              exhausted: !verifyProjection(first).ok,
            };
          }
          events++;
          const next: CompactionEvent = {
            id: `compaction-${events}`,
            agentId: AGENT_ID,
            ...compactionFields(plan, extractiveSummary(plan.request.messages)),
            historyFile: null,
            trigger: "auto",
            tokensBefore: first.tokens,
            tokensAfter: 0,
            restored: [],
            createdAt: input.now,
          };
          const secondStart = performance.now();
          const second = project({ ...inputAt(end, next), memo: null });
          const compactionMs = planMs + (performance.now() - secondStart);
          next.tokensAfter = second.tokens;
          event = next;
          memo = second.memo ?? null;
          return {
            output: second.messages,
            ms,
            compactionMs,
            needsCompaction: second.needsCompaction,
            compacted: true,
            exhausted: !verifyProjection(second).ok,
          };
        },
      };
    },
  };
}
