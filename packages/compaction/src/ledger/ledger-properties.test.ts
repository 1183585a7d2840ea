import type { ChatMessage, CompactionEvent, ModelProfile, StoredMessage } from "@longrun/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type FittedFields, fitCompaction } from "../fit-compaction.ts";
import { historyArbitrary } from "../history.test-helper.ts";
import { toolPairViolation } from "../invariants.test-helper.ts";
import { compactionFields, planCompaction } from "../plan-compaction.ts";
import { type ProjectionInput, project } from "../project.ts";
import { DEFAULT_RESTORATION_BUDGETS } from "../restoration.ts";
import { createTokenizer } from "../tokenizer.ts";
import { renderLedger } from "./render-ledger.ts";
import { type LedgerSource, ledgerSources, updateLedger } from "./update-ledger.ts";

const tokenizer = createTokenizer("o200k_base");
const RUNS = 10_000;
/** The whole compaction path projects several times per history: fewer runs, same shapes. */
const PIPELINE_RUNS = 2_000;
const TIMEOUT = 300_000;

/** Markers of provider-private state in the generated histories (and below). */
const PRIVATE = ["ZW5jcnlwdGVk", "private thoughts", "c2VjcmV0LXN0YXRl", "hidden chain"];

/** Sources whose wire messages carry reasoning too (as a fork prefix or a careless caller might). */
function withReasoning(sources: readonly LedgerSource[]): LedgerSource[] {
  return sources.map((source) =>
    source.message.role === "assistant"
      ? {
          ...source,
          message: {
            ...source.message,
            reasoning_details: [{ type: "reasoning.encrypted", data: "c2VjcmV0LXN0YXRl" }],
            reasoning_content: "hidden chain",
          },
        }
      : source,
  );
}

/**
 * Results right after their call, call ids unique: the shape the runtime appends (a step records a
 * call and its results together). Reordered or late results are repaired in the projection, but then
 * the facts' only safe cut may keep an old call whose results came last.
 */
function inOrder(facts: readonly StoredMessage[]): boolean {
  const ids = facts.flatMap((fact) => fact.toolCalls?.map((call) => call.id) ?? []);
  if (new Set(ids).size !== ids.length) return false;
  let open: string[] = [];
  for (const fact of facts) {
    if (fact.role === "tool") {
      if (open[0] !== fact.toolCallId) return false;
      open = open.slice(1);
      continue;
    }
    if (open.length > 0) return false;
    open = fact.toolCalls?.map((call) => call.id) ?? [];
  }
  return true;
}

/** Positions where a history can be split without separating a call from any of its results. */
function safeSplits(facts: readonly StoredMessage[]): number[] {
  const splits: number[] = [];
  for (let at = 0; at <= facts.length; at++) {
    const before = new Set(
      facts.slice(0, at).flatMap((fact) => fact.toolCalls?.map((call) => call.id) ?? []),
    );
    const after = facts.slice(at);
    const answeredLater = after.some((fact) => fact.role === "tool" && before.has(fact.toolCallId ?? ""));
    if (!answeredLater) splits.push(at);
  }
  return splits;
}

describe("ledger properties", () => {
  it(
    "never contains provider-private state, whatever the facts carry",
    () => {
      fc.assert(
        fc.property(historyArbitrary, (facts) => {
          const ledger = updateLedger({ messages: withReasoning(ledgerSources(facts)) });
          const text = JSON.stringify(ledger) + renderLedger(ledger, { budgetTokens: 4_000, tokenizer }).text;
          for (const marker of PRIVATE) expect(text).not.toContain(marker);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "is deterministic: the same facts give the same ledger and text, folded at once or batch by batch",
    () => {
      fc.assert(
        fc.property(
          historyArbitrary,
          fc.nat(),
          fc.integer({ min: 60, max: 3_000 }),
          (facts, seed, budget) => {
            const sources = ledgerSources(facts);
            const once = updateLedger({ messages: sources });
            expect(updateLedger({ messages: structuredClone(sources) })).toEqual(once);
            const splits = safeSplits(facts);
            const at = splits[seed % splits.length] ?? 0;
            const first = updateLedger({ messages: sources.slice(0, at) });
            expect(updateLedger({ previous: first, messages: sources.slice(at) })).toEqual(once);
            const rendered = renderLedger(once, { budgetTokens: budget, tokenizer });
            expect(renderLedger(structuredClone(once), { budgetTokens: budget, tokenizer })).toEqual(
              rendered,
            );
            expect(rendered.tokens).toBeLessThanOrEqual(Math.max(budget, tokenizer.count(rendered.text)));
            if (budget >= 60) expect(rendered.tokens).toBeLessThanOrEqual(budget);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "a compaction with its ledger keeps I1, I3, I5, and refuses only when the verbatim part alone is over the limit",
    () => {
      let checked = 0;
      const profileArbitrary: fc.Arbitrary<Partial<ModelProfile>> = fc.record({
        maxInputTokens: fc.integer({ min: 400, max: 8_000 }),
      });
      fc.assert(
        fc.property(historyArbitrary, profileArbitrary, (facts, profile) => {
          if (!inOrder(facts)) return;
          checked++;
          const last = facts[facts.length - 1];
          const input: ProjectionInput = {
            systemPrompt: "You are an agent.",
            messages: facts,
            compaction: null,
            state: null,
            profile,
            now: (last?.createdAt ?? 0) + 1_000,
            tokenizer,
          };
          const plan = planCompaction(input, { timeZone: "UTC" });
          if (!plan) return;
          const retained = facts.filter((fact) => fact.seq >= plan.cutoffIndex);
          const draft = (fields: FittedFields): CompactionEvent => ({
            id: "c1",
            agentId: "a",
            ...compactionFields(plan, ""),
            summaryMessage: fields.summaryMessage,
            ledger: fields.ledger,
            shrunk: fields.shrunk,
            historyFile: null,
            trigger: "auto",
            tokensBefore: 0,
            tokensAfter: 0,
            restored: fields.restored,
            createdAt: input.now,
          });
          const fit = fitCompaction({
            plan,
            summaryText: "Task: continue.\n\nState: half done.",
            ledger: updateLedger({ messages: plan.ledgerSources }),
            files: [],
            restorationCap: DEFAULT_RESTORATION_BUDGETS,
            historyFile: null,
            profile,
            tokenizer,
            measure: (fields) => project({ ...input, messages: retained, compaction: draft(fields) }),
          });
          const after = fit.projection;
          expect(toolPairViolation(after.messages)).toBeNull();
          const wire = JSON.stringify([after.messages, fit.fields]);
          for (const marker of PRIVATE) expect(wire).not.toContain(marker);
          const latestUser = facts.findLast((fact) => fact.role === "user");
          if (latestUser) {
            const users = after.messages.filter(
              (message: ChatMessage, index) => message.role === "user" && after.marks[index] !== "summary",
            );
            expect(users.map((message) => message.content)).toContainEqual(latestUser.content);
          }
          expect(fit.verdict.ok).toBe(after.tokens <= after.limitTokens);
          if (!fit.verdict.ok) expect(fit.verbatim.tokens).toBeGreaterThan(after.limitTokens);
        }),
        { numRuns: PIPELINE_RUNS },
      );
      // The generator also makes reordered results (for repair): enough histories must remain.
      expect(checked).toBeGreaterThan(PIPELINE_RUNS / 10);
    },
    TIMEOUT,
  );
});
