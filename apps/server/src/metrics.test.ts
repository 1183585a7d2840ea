import type { LongrunEvent } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { createMetrics } from "./metrics.ts";

const where = { seq: 0, threadId: "t", agentId: "a", runId: "r", at: 0 };

function measured(
  rewrite: "batch" | "fit" | null,
  dueTokens: number,
  rewritten?: { savedTokens: number; resentTokens: number },
): LongrunEvent {
  return {
    ...where,
    type: "context.measured",
    data: {
      step: 1,
      rawTokens: 100,
      projectedTokens: 90,
      maxInputTokens: 1_000,
      triggerTokens: 750,
      saved: { collapse: 0, truncate: 0, microcompact: 0 },
      needsCompaction: false,
      cache: { rewrite, dueTokens, ...rewritten },
    },
  } satisfies LongrunEvent;
}

function answer(promptTokens: number, cachedTokens: number): LongrunEvent {
  return {
    ...where,
    type: "message.completed",
    data: {
      messageId: "m",
      seq: 2,
      role: "assistant",
      content: "ok",
      usage: { promptTokens, completionTokens: 5, cachedTokens, totalTokens: promptTokens + 5 },
    },
  } satisfies LongrunEvent;
}

describe("metrics of the prompt cache", () => {
  it("count prompt and cached tokens of answers, and requests by cache stability", async () => {
    const metrics = createMetrics();
    metrics.observe(measured(null, 0));
    metrics.observe(answer(1_000, 900));
    metrics.observe(measured("batch", 400, { savedTokens: 400, resentTokens: 600 }));
    metrics.observe(answer(800, 200));
    metrics.observe(measured("fit", 300, { savedTokens: 500, resentTokens: 250 }));
    metrics.observe(measured("fit", 100, { savedTokens: 150, resentTokens: 50 }));
    // An older server's event carries no figures: counted as a rewrite, nothing resent.
    metrics.observe(measured("batch", 200));
    // A tool result's completion carries no usage: it counts for nothing.
    metrics.observe({
      ...where,
      type: "message.completed",
      data: { messageId: "t", seq: 3, role: "tool", content: "x" },
    } as LongrunEvent);
    const text = await metrics.registry.metrics();
    expect(text).toContain("longrun_prompt_tokens_total 1800");
    expect(text).toContain("longrun_cached_prompt_tokens_total 1100");
    expect(text).toContain('longrun_projection_cache_total{outcome="extended"} 1');
    expect(text).toContain('longrun_projection_cache_total{outcome="batch"} 2');
    expect(text).toContain('longrun_projection_cache_total{outcome="fit"} 2');
    expect(text).toContain('longrun_projection_resent_tokens_total{cause="batch"} 600');
    expect(text).toContain('longrun_projection_resent_tokens_total{cause="fit"} 300');
  });
});

describe("metrics of what model calls cost", () => {
  const cost = (cacheRead: number, uncached: number, output: number) => ({
    cacheRead,
    uncached,
    output,
    billed: {
      openai: cacheRead * 0.1 + uncached + output * 4,
      anthropic: cacheRead * 0.1 + uncached * 1.25 + output * 4,
    },
    source: "estimate" as const,
  });

  it("count each step's and each summary's tokens and billed figure under its tenant", async () => {
    const metrics = createMetrics({ tenantLabels: 1 });
    const step = measured(null, 0);
    metrics.observe(
      { ...step, data: { ...step.data, cost: cost(1_000, 200, 50) } } as LongrunEvent,
      "tenant-a",
    );
    metrics.observe(
      { ...step, data: { ...step.data, cost: cost(3_000, 100, 10) } } as LongrunEvent,
      "tenant-a",
    );
    metrics.observe(
      {
        ...where,
        type: "compaction.prepared",
        data: {
          compactionKey: "k",
          outcome: "ready",
          cutoffMessageId: "m",
          tokensAt: 9,
          summaryCost: cost(900, 100, 300),
        },
      } as LongrunEvent,
      "tenant-a",
    );
    // A second tenant past the label limit counts under `other`; a step without a cost counts nothing.
    metrics.observe({ ...step, data: { ...step.data, cost: cost(0, 500, 0) } } as LongrunEvent, "tenant-b");
    metrics.observe(measured(null, 0), "tenant-b");
    const text = await metrics.registry.metrics();
    expect(text).toContain(
      'longrun_model_tokens_total{tenant="tenant-a",purpose="step",kind="cache_read"} 4000',
    );
    expect(text).toContain(
      'longrun_model_tokens_total{tenant="tenant-a",purpose="step",kind="uncached"} 300',
    );
    expect(text).toContain('longrun_model_tokens_total{tenant="tenant-a",purpose="step",kind="output"} 60');
    expect(text).toContain(
      'longrun_model_tokens_total{tenant="tenant-a",purpose="summary",kind="output"} 300',
    );
    // 0.1 × 4,000 + 300 + 4 × 60 = 940; the summary 90 + 100 + 1,200 = 1,390.
    expect(text).toContain(
      'longrun_billed_equivalent_tokens_total{tenant="tenant-a",purpose="step",profile="openai"} 940',
    );
    expect(text).toContain(
      'longrun_billed_equivalent_tokens_total{tenant="tenant-a",purpose="summary",profile="openai"} 1390',
    );
    expect(text).toContain(
      'longrun_billed_equivalent_tokens_total{tenant="other",purpose="step",profile="anthropic"} 625',
    );
  });
});
