import type { Tokenizer } from "@longrun/compaction";
import type { Logger } from "@longrun/protocol";
import type { Lease, Scheduler } from "@longrun/queue";
import type { Store } from "@longrun/store";
import type OpenAI from "openai";
import type { Breaker } from "./breaker/index.ts";
import type { EventSink } from "./events/event-sink.ts";
import type { TenantLimitsConfig } from "./fair-share/tenant-limits.ts";
import type { RuntimeMetrics } from "./runtime-metrics.ts";
import type { MessageCounter } from "./tokens/message-counter.ts";
import type { ToolRegistry } from "./tools/index.ts";
import type { AnthropicEndpoint } from "./upstream/upstream-request.ts";

/**
 * The resources every runtime system shares (runs, step, context, compaction, events, jobs, client
 * turns): the same object in embedded and distributed mode.
 */
export interface RuntimeDeps {
  store: Store;
  model: OpenAI;
  /** Endpoint of profiles whose upstreamApi is anthropic-messages; unset: `model`'s origin. */
  anthropic?: AnthropicEndpoint;
  tools: ToolRegistry;
  breaker: Breaker;
  events: EventSink;
  /** Where every job is enqueued (packages/queue). */
  scheduler: Scheduler;
  /** One holder per agent at a time, with a fencing token the store checks on append. */
  lease: Lease;
  tokenizer: Tokenizer;
  /**
   * The process's structured log; a job's handler passes on a child bound to its thread, agent, run
   * and job ids, so every line below it carries them.
   */
  log: Logger;
  /** Latency histograms of this process's own work (none: not measured, as in tests). */
  metrics?: RuntimeMetrics;
  now: () => number;
  /** IANA zone the summarizer is told, so relative dates survive. */
  timeZone: string;
  /** Extra request headers per agent (tests inject sim-model faults this way). */
  modelHeaders?: (agentId: string) => Record<string, string> | undefined;
  /**
   * Counts a message's tokens before its write transaction, large ones off the event loop; without it
   * the store counts inline (tests).
   */
  counter?: MessageCounter;
  /** Each tenant's share (runs at once, runs queued, request rate); the defaults when absent. */
  tenantLimits?: TenantLimitsConfig;
  /**
   * Largest file content (bytes) a workspace snapshot keeps (LONGRUN_SNAPSHOT_MAX_BYTES); a larger
   * one keeps its hash and size only. Default 1 MiB.
   */
  snapshotMaxBytes?: number;
  /** Provider retry policy; tests shorten it. */
  retry?: { maxAttempts?: number; baseMs?: number; maxMs?: number };
}
