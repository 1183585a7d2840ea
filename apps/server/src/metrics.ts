import type { CallCost, LongrunEvent } from "@longrun/protocol";
import type { RuntimeMetrics } from "@longrun/runtime";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

export type Metrics = ReturnType<typeof createMetrics>;

/** Tenants that get a label of their own; runs of any later tenant count under `other`. */
const DEFAULT_TENANT_LABELS = 50;

/** Seconds: from a fast sim step (ms) to a long model answer (minutes). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * Prometheus metrics of one process, counting only its own work: counters are fed from the events
 * this process emitted (`observe`, wired to its event sink, never to the bus), histograms by the
 * runtime where the work happens, so the /metrics of N servers and workers add up to the truth.
 * Gauges of shared state (queues, open breakers) are the pool's and must not be summed.
 */
export function createMetrics(options: { tenantLabels?: number } = {}) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "longrun_" });
  const runs = new Counter({
    name: "longrun_runs_total",
    help: "Runs admitted by this process, by kind (message, compact, spawn, gateway) and tenant (the first 50 tenants seen, then `other`)",
    labelNames: ["kind", "tenant"],
    registers: [registry],
  });
  const tenantLabels = new Set<string>();
  const tenantLabelLimit = options.tenantLabels ?? DEFAULT_TENANT_LABELS;
  const tenantLabel = (tenantId: string) => {
    if (tenantLabels.has(tenantId)) return tenantId;
    if (tenantLabels.size >= tenantLabelLimit) return "other";
    tenantLabels.add(tenantId);
    return tenantId;
  };
  const stepSeconds = new Histogram({
    name: "longrun_step_seconds",
    help: "Agent steps (lease to outcome: model call and tool calls), by outcome",
    labelNames: ["outcome"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const modelCallSeconds = new Histogram({
    name: "longrun_model_call_seconds",
    help: "Model call attempts, by purpose (step, summary) and outcome (ok, error)",
    labelNames: ["purpose", "outcome"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const queueWaitSeconds = new Histogram({
    name: "longrun_queue_wait_seconds",
    help: "Time a job waited between becoming ready and a worker taking it (first attempts), by job",
    labelNames: ["job"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const compactionSeconds = new Histogram({
    name: "longrun_compaction_seconds",
    help: "Compaction jobs (plan, summary call, record), by outcome",
    labelNames: ["outcome"],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const runtime: RuntimeMetrics = {
    step: (seconds, outcome) => stepSeconds.observe({ outcome }, seconds),
    modelCall: (seconds, purpose, outcome) => modelCallSeconds.observe({ purpose, outcome }, seconds),
    queueWait: (seconds, job) => queueWaitSeconds.observe({ job }, seconds),
    compaction: (seconds, outcome) => compactionSeconds.observe({ outcome }, seconds),
    runAdmitted: (kind, tenantId) => runs.inc({ kind, tenant: tenantLabel(tenantId) }),
  };
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
  const modelTokens = new Counter({
    name: "longrun_model_tokens_total",
    help: "Tokens of model calls, by tenant (the first 50 seen, then `other`), purpose (step, summary) and kind: input read from the prefix cache (cache_read), input not read from it (uncached), output",
    labelNames: ["tenant", "purpose", "kind"],
    registers: [registry],
  });
  const billedTokens = new Counter({
    name: "longrun_billed_equivalent_tokens_total",
    help: "What model calls cost in units of one uncached input token (cache reads 0.1, writes 1 OpenAI-style or 1.25 Anthropic-style, output ×4), by tenant, purpose (step, summary) and price profile (openai, anthropic)",
    labelNames: ["tenant", "purpose", "profile"],
    registers: [registry],
  });
  const countCost = (cost: CallCost, purpose: "step" | "summary", tenantId: string) => {
    const tenant = tenantLabel(tenantId || "unknown");
    modelTokens.inc({ tenant, purpose, kind: "cache_read" }, cost.cacheRead);
    modelTokens.inc({ tenant, purpose, kind: "uncached" }, cost.uncached);
    modelTokens.inc({ tenant, purpose, kind: "output" }, cost.output);
    billedTokens.inc({ tenant, purpose, profile: "openai" }, cost.billed.openai);
    billedTokens.inc({ tenant, purpose, profile: "anthropic" }, cost.billed.anthropic);
  };
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

  function observe(event: LongrunEvent, tenantId = ""): void {
    switch (event.type) {
      case "context.measured":
        steps.inc();
        if (event.data.cost) countCost(event.data.cost, "step", tenantId);
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
      case "compaction.prepared":
        if (event.data.summaryCost) countCost(event.data.summaryCost, "summary", tenantId);
        break;
      case "compaction.completed":
        compactions.inc({ trigger: event.data.trigger, outcome: "completed" });
        if (event.data.summaryCost) countCost(event.data.summaryCost, "summary", tenantId);
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
      default:
        break;
    }
  }

  /** Shared state seen on the bus (every process's events): the pool's open breakers, a gauge. */
  function observeShared(event: LongrunEvent): void {
    if (event.type === "breaker.opened" && event.agentId) openBreakers.add(event.agentId);
    else if (event.type === "breaker.closed" && event.agentId) openBreakers.delete(event.agentId);
    else return;
    breakersOpen.set(openBreakers.size);
  }

  return {
    registry,
    runtime,
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
    observeShared,
  };
}
