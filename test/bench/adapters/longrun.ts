import {
  compactionFields,
  createTokenizer,
  estimateStoredTokens,
  type Projection,
  type ProjectionInput,
  planCompaction,
  project,
  verifyProjection,
} from "@longrun/compaction";
import type {
  ChatMessage,
  CompactionEvent,
  ModelProfile,
  StageSavings,
  StoredMessage,
} from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import { extractiveSummary } from "../extractive-summarizer.ts";
import type { AdapterResult, BenchAdapter } from "./adapter.ts";

export const tokenizer = createTokenizer("o200k_base");
export const AGENT_ID = "bench-agent";
/** Synthetic clock: one fact a second, so the idle gap (microcompact) never fires. */
export const EPOCH = 1_700_000_000_000;
export const STEP_MS = 1_000;

/** A transcript as the store would hold it: system prompt apart, facts with tokenCount set once. */
interface StoredTranscript {
  systemPrompt: string | null;
  /** Transcript index of facts[0] (1 when the transcript opens with a system message). */
  offset: number;
  facts: StoredMessage[];
}

/** A transcript as the store would hold it: facts with the per-message counts computed on append. */
export function toStored(messages: readonly ChatMessage[]): StoredTranscript {
  const first = messages[0];
  const offset = first?.role === "system" ? 1 : 0;
  const systemPrompt = first !== undefined && offset === 1 ? contentText(first.content) : null;
  const facts = messages.slice(offset).map((message, seq): StoredMessage => {
    const fact: StoredMessage = {
      id: `fact-${seq}`,
      agentId: AGENT_ID,
      seq,
      role: message.role,
      content: message.content,
      tokenCount: 0,
      createdAt: EPOCH + seq * STEP_MS,
    };
    if (message.name !== undefined) fact.name = message.name;
    if (message.tool_calls !== undefined) fact.toolCalls = message.tool_calls;
    if (message.tool_call_id !== undefined) fact.toolCallId = message.tool_call_id;
    // The per-message count the store computes on append (the cache every projection reuses).
    fact.tokenCount = estimateStoredTokens(fact, tokenizer);
    return fact;
  });
  return { systemPrompt, offset, facts };
}

function projectionInput(
  transcript: StoredTranscript,
  end: number,
  budget: number,
  compaction: CompactionEvent | null,
): ProjectionInput {
  const factsEnd = end - transcript.offset;
  // Like the store: load facts from the boundary's seq on (project resolves the exact boundary by id).
  const from = compaction === null ? 0 : Math.min(compaction.cutoffIndex, factsEnd);
  const profile: Partial<ModelProfile> = { model: "bench", maxInputTokens: budget };
  return {
    systemPrompt: transcript.systemPrompt,
    messages: transcript.facts.slice(from, factsEnd),
    compaction,
    state: null,
    profile,
    now: EPOCH + factsEnd * STEP_MS,
    tokenizer,
  };
}

/** longrun project() with deterministic stages only (no compaction event ever exists). */
export const longrunDeterministicAdapter: BenchAdapter & {
  savings(messages: readonly ChatMessage[], budget: number): { rawTokens: number; saved: StageSavings };
} = {
  name: "longrun project (deterministic)",
  targetsBudget: true,
  sequential: false,
  prepare(messages, budget) {
    const transcript = toStored(messages);
    return {
      async call(end) {
        const input = projectionInput(transcript, end, budget, null);
        const start = performance.now();
        const projection = project(input);
        const ms = performance.now() - start;
        return { output: projection.messages, ms, needsCompaction: projection.needsCompaction };
      },
    };
  },
  savings(messages, budget) {
    const transcript = toStored(messages);
    const projection = project(projectionInput(transcript, messages.length, budget, null));
    return { rawTokens: projection.rawTokens, saved: projection.saved };
  },
};

/**
 * longrun project() with LLM compaction simulated the way `longrun replay` runs it: at each
 * call point, project; when it needs compaction, planCompaction → summarizer → event →
 * project again. The summarizer is the bench's EXTRACTIVE STAND-IN (no LLM, ≤ ~1,000 tokens).
 * Timed: the first project() of each call (the per-call cost); planning + re-projection after a
 * compaction is reported apart (summarizer excluded).
 */
export const longrunWithCompactionAdapter: BenchAdapter = {
  name: "longrun project + compaction [stand-in summarizer]",
  targetsBudget: true,
  sequential: true,
  prepare(messages, budget) {
    const transcript = toStored(messages);
    let event: CompactionEvent | null = null;
    let events = 0;
    return {
      async call(end): Promise<AdapterResult> {
        const input = projectionInput(transcript, end, budget, event);
        const start = performance.now();
        const first = project(input);
        const ms = performance.now() - start;
        if (!first.needsCompaction)
          return { output: first.messages, ms, needsCompaction: false, compacted: false };
        const planStart = performance.now();
        const plan = planCompaction(input, { timeZone: "UTC" });
        const planMs = performance.now() - planStart;
        if (plan === null) {
          return {
            output: first.messages,
            ms,
            needsCompaction: true,
            compacted: false,
            exhausted: !verifyProjection(first).ok,
          };
        }
        const summary = extractiveSummary(plan.request.messages);
        events++;
        const next: CompactionEvent = {
          id: `compaction-${events}`,
          agentId: AGENT_ID,
          ...compactionFields(plan, summary),
          historyFile: null,
          trigger: "auto",
          tokensBefore: first.tokens,
          tokensAfter: 0,
          restored: [],
          createdAt: input.now,
        };
        const secondInput = projectionInput(transcript, end, budget, next);
        const secondStart = performance.now();
        const second: Projection = project(secondInput);
        // Compaction cost without the summarizer: planning + the projection after the event.
        const compactionMs = planMs + (performance.now() - secondStart);
        next.tokensAfter = second.tokens;
        event = next;
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
