import type { ChatMessage } from "@longrun/protocol";

/** What one call of an adapter produced, and how long the timed part took. */
export interface AdapterResult {
  output: ChatMessage[];
  /** performance.now() span of the library call only (conversions excluded). */
  ms: number;
  /** longrun only: the projection still asked for LLM compaction. */
  needsCompaction?: boolean;
  /** longrun with LLM compaction only: a compaction event was created before this call. */
  compacted?: boolean;
  /** longrun with LLM compaction only: planning + re-projection time of that compaction. */
  compactionMs?: number;
  /** longrun only: verifyProjection said context_exhausted for the output. */
  exhausted?: boolean;
}

/** An adapter bound to one transcript and one budget; conversions and caches are built once here. */
export interface PreparedAdapter {
  /** Run on the prefix messages[0..end). */
  call(end: number): Promise<AdapterResult>;
}

/** One contender of the compaction bench. */
export interface BenchAdapter {
  name: string;
  /** Whether the method aims at a token budget (pruneMessages does not). */
  targetsBudget: boolean;
  /** Stateful adapters must see every call point of a file in order (they keep compaction events). */
  sequential: boolean;
  /** Fewer measured call points per file than the bench default (slow contenders). */
  samplesPerFile?: number;
  prepare(messages: readonly ChatMessage[], budget: number): PreparedAdapter;
}
