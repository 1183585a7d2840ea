import type { LongrunEvent } from "@longrun/protocol";
import { Counter, Gauge, Registry } from "prom-client";

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Prometheus metrics. Counters are fed from the event stream this instance sees (every event of every
 * worker), gauges of queues and sockets are collected on scrape.
 */
export function createMetrics() {
  const registry = new Registry();
  const runs = new Counter({
    name: "longrun_runs_total",
    help: "Runs admitted, by kind",
    labelNames: ["kind"],
    registers: [registry],
  });
  const runOutcomes = new Counter({
    name: "longrun_run_outcomes_total",
    help: "Runs finished, by outcome",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const steps = new Counter({
    name: "longrun_steps_total",
    help: "Agent steps measured (one per model call attempt)",
    registers: [registry],
  });
  const compactions = new Counter({
    name: "longrun_compactions_total",
    help: "Compactions by trigger and outcome",
    labelNames: ["trigger", "outcome"],
    registers: [registry],
  });
  const tokensSaved = new Counter({
    name: "longrun_tokens_saved_total",
    help: "Tokens removed from projections, by stage (collapse, truncate, microcompact, summary)",
    labelNames: ["stage"],
    registers: [registry],
  });
  const promptTokens = new Counter({
    name: "longrun_prompt_tokens_total",
    help: "Prompt tokens of model answers, as the provider reported them",
    registers: [registry],
  });
  const cachedPromptTokens = new Counter({
    name: "longrun_cached_prompt_tokens_total",
    help: "Of those, the tokens the provider served from its prompt cache (cached share = this ÷ prompt tokens)",
    registers: [registry],
  });
  const projectionCache = new Counter({
    name: "longrun_projection_cache_total",
    help: "Requests by cache stability: extended (the previous request is a byte-identical prefix) or the cause of a rewrite of sent messages (batch, fit, compaction, history)",
    labelNames: ["outcome"],
    registers: [registry],
  });
  const projectionResent = new Counter({
    name: "longrun_projection_resent_tokens_total",
    help: "Tokens after the first message a rewrite changed (estimated): what a prefix cache could not serve because sent messages were rewritten, by cause",
    labelNames: ["cause"],
    registers: [registry],
  });
  const breakersOpen = new Gauge({
    name: "longrun_breakers_open",
    help: "Agents whose compaction breaker is open",
    registers: [registry],
  });
  const queueDepth = new Gauge({
    name: "longrun_queue_depth",
    help: "Jobs waiting, by queue and state",
    labelNames: ["queue", "state"],
    registers: [registry],
  });
  const queueWait = new Gauge({
    name: "longrun_queue_oldest_wait_seconds",
    help: "Age of the oldest waiting job",
    labelNames: ["queue"],
    registers: [registry],
  });
  const wsClients = new Gauge({
    name: "longrun_websocket_clients",
    help: "Connected WebSocket clients",
    registers: [registry],
  });
  const openBreakers = new Set<string>();

  function observe(event: LongrunEvent): void {
    switch (event.type) {
      case "context.measured":
        steps.inc();
        if (event.data.cache) {
          const { rewrite, resentTokens } = event.data.cache;
          projectionCache.inc({ outcome: rewrite ?? "extended" });
          if (rewrite && resentTokens) projectionResent.inc({ cause: rewrite }, resentTokens);
        }
        break;
      case "message.completed":
        if (event.data.role === "assistant" && event.data.usage) {
          promptTokens.inc(event.data.usage.promptTokens);
          cachedPromptTokens.inc(event.data.usage.cachedTokens ?? 0);
        }
        break;
      case "run.completed":
        runOutcomes.inc({ outcome: "completed" });
        break;
      case "run.failed":
        runOutcomes.inc({ outcome: "failed" });
        break;
      case "run.cancelled":
        runOutcomes.inc({ outcome: "cancelled" });
        break;
      case "compaction.completed":
        compactions.inc({ trigger: event.data.trigger, outcome: "completed" });
        tokensSaved.inc({ stage: "collapse" }, event.data.saved.collapse);
        tokensSaved.inc({ stage: "truncate" }, event.data.saved.truncate);
        tokensSaved.inc({ stage: "microcompact" }, event.data.saved.microcompact);
        tokensSaved.inc({ stage: "summary" }, Math.max(0, event.data.tokensBefore - event.data.tokensAfter));
        break;
      case "compaction.failed":
        compactions.inc({
          trigger: event.data.trigger,
          outcome: event.data.contextExhausted ? "exhausted" : "failed",
        });
        break;
      case "breaker.opened":
        if (event.agentId) openBreakers.add(event.agentId);
        breakersOpen.set(openBreakers.size);
        break;
      case "breaker.closed":
        if (event.agentId) openBreakers.delete(event.agentId);
        breakersOpen.set(openBreakers.size);
        break;
      default:
        break;
    }
  }

  return {
    registry,
    runs,
    steps,
    compactions,
    tokensSaved,
    promptTokens,
    cachedPromptTokens,
    projectionCache,
    projectionResent,
    queueDepth,
    queueWait,
    wsClients,
    observe,
  };
}
