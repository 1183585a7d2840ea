import type { ModelProfile, StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { compactionFields, planCompaction } from "./plan-compaction.ts";
import { backgroundLineTokens, preparedOnBase, shouldPrepareSummary } from "./prepared-summary.ts";
import { type ProjectionInput, project } from "./project.ts";
import { createTokenizer } from "./tokenizer.ts";

const tokenizer = createTokenizer("o200k_base");
const profile: Partial<ModelProfile> = { maxInputTokens: 8_000, backgroundRatio: 0.8 };

/** The task, then `steps` reads of a 40-line file each. */
function session(steps: number): StoredMessage[] {
  const facts: StoredMessage[] = [];
  const push = (fact: Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt">) => {
    const seq = facts.length;
    facts.push({ ...fact, id: `f${seq}`, agentId: "a", seq, tokenCount: 0, createdAt: 1_000 + seq });
  };
  push({ role: "user", content: "Survey the parser package." });
  for (let step = 0; step < steps; step++) {
    push({
      role: "assistant",
      content: `Reading part ${step}.`,
      toolCalls: [
        {
          id: `c${step}`,
          type: "function",
          function: { name: "read_file", arguments: JSON.stringify({ path: `src/part${step}.ts` }) },
        },
      ],
    });
    push({
      role: "tool",
      toolCallId: `c${step}`,
      toolStatus: "ok",
      content: Array.from({ length: 40 }, (_, line) => `export const p${step}_${line} = ${line};`).join("\n"),
    });
  }
  return facts;
}

const inputOf = (facts: StoredMessage[], overrides: Partial<ProjectionInput> = {}): ProjectionInput => ({
  systemPrompt: "You are an agent.",
  messages: facts,
  compaction: null,
  state: null,
  profile,
  now: 10_000,
  tokenizer,
  ...overrides,
});

/** The first session length whose request passes the background line (and is not yet due). */
function pastTheLine(): { facts: StoredMessage[]; steps: number } {
  for (let steps = 1; steps < 200; steps++) {
    const facts = session(steps);
    const projection = project(inputOf(facts));
    if (projection.needsCompaction) break;
    if (shouldPrepareSummary(projection, profile, null)) return { facts, steps };
  }
  throw new Error("the session never passed the line before its trigger");
}

describe("background summaries", () => {
  it("start past the line, once per compaction in force, never when a compaction is due or the ratio is 0", () => {
    const line = backgroundLineTokens(profile, 6_000);
    expect(line).toBe(4_800);
    expect(backgroundLineTokens({ ...profile, backgroundRatio: 0 }, 6_000)).toBeNull();
    const { facts, steps } = pastTheLine();
    const projection = project(inputOf(facts));
    expect(projection.continuation.tokens).toBeGreaterThanOrEqual(Math.floor(projection.triggerTokens * 0.8));
    // One step earlier it was under the line.
    expect(shouldPrepareSummary(project(inputOf(session(steps - 1))), profile, null)).toBe(false);
    // Prepared on the compaction in force: not again; prepared on an earlier one: again.
    expect(preparedOnBase({ baseCompactionId: null }, null)).toBe(true);
    expect(preparedOnBase({ baseCompactionId: "c0" }, null)).toBe(false);
    expect(preparedOnBase({ baseCompactionId: "c0" }, { id: "c0" })).toBe(true);
    expect(shouldPrepareSummary(projection, { ...profile, backgroundRatio: 0 }, null)).toBe(false);
    // At the trigger the compaction runs in the foreground.
    let due = steps;
    while (!project(inputOf(session(due))).needsCompaction) due++;
    expect(shouldPrepareSummary(project(inputOf(session(due))), profile, null)).toBe(false);
  });

  it("before the first compaction start no earlier than 0.8 of the trigger; after one, at the profile's line", () => {
    const early = { ...profile, backgroundRatio: 0.6 };
    let steps = 1;
    let projection = project(inputOf(session(steps)));
    while (projection.continuation.tokens < Math.floor(projection.triggerTokens * 0.6)) {
      steps++;
      projection = project(inputOf(session(steps)));
    }
    expect(projection.continuation.tokens).toBeLessThan(Math.floor(projection.triggerTokens * 0.8));
    expect(shouldPrepareSummary(projection, early, null)).toBe(false);
    expect(shouldPrepareSummary(projection, early, { id: "c0" })).toBe(true);
    const { facts } = pastTheLine();
    expect(shouldPrepareSummary(project(inputOf(facts)), early, null)).toBe(true);
  });

  it("applied later, cut where the compaction cuts anyway; the messages after the summary's end are the ledger's alone, and the header says so", () => {
    const { facts } = pastTheLine();
    const early = planCompaction(inputOf(facts), { timeZone: "UTC", noProgress: "plan" });
    if (!early?.cutoffMessageId) throw new Error("expected a plan with a cut");
    // The agent went on: six more steps, then the compaction at the trigger.
    const later = session(facts.length / 2 + 6);
    const usual = planCompaction(inputOf(later), { timeZone: "UTC", noProgress: "plan" });
    const applied = planCompaction(inputOf(later), {
      timeZone: "UTC",
      noProgress: "plan",
      preparedCutoff: early.cutoffMessageId,
    });
    if (!usual || !applied) throw new Error("expected both plans");
    expect(applied.cutoffMessageId).toBe(usual.cutoffMessageId);
    expect(applied.toSummarize.map((fact) => fact.id)).toEqual(usual.toSummarize.map((fact) => fact.id));
    const preparedEnd = later.findIndex((fact) => fact.id === early.cutoffMessageId) - 1;
    expect(applied.summaryMeta.textThroughSeq).toBe(later[preparedEnd]?.seq);
    expect(applied.summaryMeta.textThroughSeq).toBeLessThan(applied.summaryMeta.lastSeq ?? 0);
    // The ledger folds every message the compaction removes, not only the ones the text covers.
    expect(applied.ledgerSources).toHaveLength(usual.ledgerSources.length);
    const header = String(compactionFields(applied, "The parser was surveyed.").summaryMessage.content);
    expect(header).toContain(
      `the text below covers them through seq ${applied.summaryMeta.textThroughSeq}, the working-state ledger all of them`,
    );
    expect(String(compactionFields(usual, "x").summaryMessage.content)).not.toContain(
      "the text below covers",
    );
  });

  it("applied at once when nothing happened since: the same cut, and the text covers it all", () => {
    const { facts } = pastTheLine();
    const early = planCompaction(inputOf(facts), { timeZone: "UTC", noProgress: "plan" });
    const again = planCompaction(inputOf(facts), {
      timeZone: "UTC",
      noProgress: "plan",
      preparedCutoff: early?.cutoffMessageId ?? "",
    });
    expect(again?.cutoffMessageId).toBe(early?.cutoffMessageId);
    expect(again?.summaryMeta.textThroughSeq).toBeUndefined();
  });

  it("discarded when it covers nothing of the history in force or names no possible cut", () => {
    const { facts } = pastTheLine();
    const input = inputOf(facts);
    // The first fact in force: the summary would cover nothing.
    expect(planCompaction(input, { timeZone: "UTC", noProgress: "plan", preparedCutoff: "f0" })).toBeNull();
    // A message the history does not hold (another epoch's), and a tool result (never a cut).
    expect(planCompaction(input, { timeZone: "UTC", noProgress: "plan", preparedCutoff: "nope" })).toBeNull();
    const lastResult = [...facts].reverse().find((fact) => fact.role === "tool");
    expect(
      planCompaction(input, { timeZone: "UTC", noProgress: "plan", preparedCutoff: lastResult?.id ?? "" }),
    ).toBeNull();
  });
});
