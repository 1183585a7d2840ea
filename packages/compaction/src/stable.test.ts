import type { StoredMessage } from "@longrun/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collapseTraces } from "./collapse.ts";
import { historyArbitrary } from "./history.test-helper.ts";
import { toolPairViolation } from "./invariants.test-helper.ts";
import { clearOlderResults } from "./microcompact.ts";
import { project } from "./project.ts";
import { ReductionCache } from "./reductions.ts";
import { FIT_RESEND_PER_ROOM } from "./rewrite-policy.ts";
import { callPoints, factLog, inputAt, type Scenario, tokenizer, walk, wire } from "./stable.test-helper.ts";
import { defaultRewriteMinTokens, openFrom, type ProjectionMemo } from "./stable.ts";
import { rebuildMemo } from "./stable-fold.ts";
import { thresholds } from "./thresholds.ts";
import { truncateArguments } from "./truncate.ts";

const RUNS = 1_500;
const TIMEOUT = 300_000;

// Windows small enough that the generated histories cross the trigger and the limit.
const scenarioArbitrary: fc.Arbitrary<Scenario> = fc.record({
  facts: historyArbitrary,
  profile: fc.oneof(
    fc.record({ maxInputTokens: fc.integer({ min: 300, max: 3_000 }) }),
    fc.record({
      fallbackTriggerTokens: fc.integer({ min: 200, max: 2_000 }),
      fallbackKeepMessages: fc.integer({ min: 1, max: 8 }),
    }),
  ),
  rewriteMinTokens: fc.option(fc.integer({ min: 1, max: 1_500 }), { nil: undefined }),
});

describe("cache-stable projection (property tests)", () => {
  it(
    "incremental == from scratch: the memo carried call to call equals the one folded from the facts",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          let carried: ProjectionMemo | null = null;
          for (const end of callPoints(scenario.facts)) {
            const folded = rebuildMemo(inputAt(scenario, end, null));
            expect(folded).toEqual(carried);
            const projection = project(inputAt(scenario, end, carried));
            expect(project(inputAt(scenario, end, folded))).toEqual(projection);
            carried = projection.memo ?? null;
          }
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "between compactions a request extends the previous one byte for byte, except at a batched rewrite that saves at least its threshold",
    () => {
      let batches = 0;
      let extensions = 0;
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const limits = thresholds(scenario.profile);
          const minTokens = scenario.rewriteMinTokens ?? defaultRewriteMinTokens(limits);
          let previous: string[] | null = null;
          for (const { projection } of walk(scenario)) {
            const sent = wire(projection);
            const rewrite = projection.rewrite;
            expect(rewrite).toBeDefined();
            if (previous !== null && rewrite?.cause === null) {
              expect(sent.slice(0, previous.length)).toEqual(previous);
              extensions++;
            }
            if (rewrite?.cause === "batch") {
              expect(rewrite.savedTokens).toBeGreaterThanOrEqual(minTokens);
              batches++;
            }
            if (rewrite?.cause === "fit") expect(rewrite.reason).toMatch(/^needed to fit/);
            // Deferred reductions never leave a request over its limit when they could have fitted it.
            if (!rewrite?.rewritten && projection.tokens > projection.limitTokens) {
              expect(projection.needsCompaction || rewrite?.dueTokens === 0).toBe(true);
            }
            expect(toolPairViolation(projection.messages)).toBeNull();
            previous = sent;
          }
        }),
        { numRuns: RUNS },
      );
      // The generator reaches both branches (a property that never meets a rewrite proves nothing).
      expect(batches).toBeGreaterThan(0);
      expect(extensions).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "per-fact stage results reused from earlier calls change nothing: with the cache == without",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, fc.boolean(), (scenario, stable) => {
          const reductions = new ReductionCache();
          let memo: ProjectionMemo | null = null;
          for (const end of callPoints(scenario.facts)) {
            const input = { ...inputAt(scenario, end, memo), ...(stable ? {} : { memo: undefined }) };
            const plain = project(input);
            expect(project({ ...input, reductions })).toEqual(plain);
            memo = plain.memo ?? null;
          }
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "LLM compaction is decided as from scratch, or instead of a rewrite to fit that buys too little room for what it resends",
    () => {
      let instead = 0;
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          for (const { end, projection } of walk(scenario)) {
            const scratch = project({ ...inputAt(scenario, end, null), memo: undefined });
            if (scratch.needsCompaction || !projection.needsCompaction) continue;
            // The cost model may find compaction cheaper than the deterministic path, a rewrite to fit
            // included (its resent tokens are priced; small windows budget a small summary): it says so,
            // and why. That is never also a compaction instead of a rewrite: that one is "must".
            if (projection.compactionNeed?.need === "cheaper") {
              expect(projection.rewrite?.reason ?? "").not.toMatch(/LLM compaction instead/);
              expect(projection.reason).toMatch(/LLM compaction is cheaper than the deterministic path/);
              if (projection.rewrite?.cause === "fit") expect(projection.reason).toContain("needed to fit");
              expect(projection.compactionNeed.expectedSaving).toBeGreaterThan(0);
              continue;
            }
            instead++;
            expect(projection.compactionNeed?.need).toBe("must");
            expect(projection.rewrite?.cause).toBe("fit");
            // Either the rewrite leaves too little room, or it resends too much per token of room.
            const reason = projection.rewrite?.reason ?? "";
            const dear = /; LLM compaction instead: the rewrite resends (\d+) tokens to leave (-?\d+) /.exec(
              reason,
            );
            if (dear) {
              expect(Number(dear[1])).toBe(projection.rewrite?.resentTokens);
              expect(Number(dear[1])).toBeGreaterThan(FIT_RESEND_PER_ROOM * Math.max(0, Number(dear[2])));
            } else expect(reason).toMatch(/; LLM compaction instead: the rewrite leaves \d+ < /);
            // The rewrite stands, for when compaction cannot run.
            expect(projection.tokens).toBeLessThanOrEqual(projection.limitTokens);
          }
        }),
        { numRuns: RUNS },
      );
      expect(instead).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    "a rewrite takes everything due from its first change on, older results there cleared; one from the oldest reduction also takes what would come due soon",
    () => {
      let wide = 0;
      let late = 0;
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const limits = thresholds(scenario.profile);
          let previous: ProjectionMemo | null = null;
          for (const { projection } of walk(scenario)) {
            const { rewrite, memo } = projection;
            const before = previous;
            previous = memo ?? null;
            if (!rewrite?.rewritten || rewrite.cause === "compaction" || !memo) continue;
            // The first message the rewrite changed against what the previous call sent.
            const was = (before?.segments ?? []).map((segment) => JSON.stringify(segment.item.message));
            let first = 0;
            while (first < was.length && JSON.stringify(memo.segments[first]?.item.message) === was[first])
              first++;
            // What was sent, with the reduced forms (and all before the first change) locked as the
            // next call sees them.
            const sentFrom = (from: number) => openFrom(memo.segments, from);
            const sent = sentFrom(first);
            // From the first change on, the standard stages always find nothing left.
            expect(collapseTraces(sent, { tokenizer }).saved).toBe(0);
            expect(truncateArguments(sent, { tokenizer, recentMessages: limits.keepMessages }).saved).toBe(0);
            // ... and no older result is left to clear there (the five most recent stay).
            // (rewrite-clear.test.ts builds a rewrite that clears: random histories rarely reach one)
            expect(clearOlderResults(sent, { tokenizer, keep: 5, why: "rewrite" }).saved).toBe(0);
            // A rewrite that started late left reductions due before its first change.
            const whole = sentFrom(0);
            if (
              collapseTraces(whole, { tokenizer }).saved > 0 ||
              truncateArguments(whole, { tokenizer, recentMessages: limits.keepMessages }).saved > 0
            ) {
              late++;
              expect(rewrite.horizon).toBe(false);
            }
            expect(rewrite.resentTokens).toBeGreaterThan(0);
            expect(rewrite.savedTokens).toBeGreaterThan(0);
            // The stages as a rewrite runs them (whole runs, arguments up to the active loop) find
            // nothing left anywhere, unless the wider form measured more (a usage anchor folded into a
            // record leaves the padded estimate) or a later start cost less.
            if (!rewrite.horizon) continue;
            wide++;
            expect(collapseTraces(whole, { tokenizer, wholeRuns: true }).saved).toBe(0);
            expect(truncateArguments(whole, { tokenizer, recentMessages: 0 }).saved).toBe(0);
          }
        }),
        { numRuns: RUNS },
      );
      // The generator reaches rewrites from the oldest reduction (late starts are rare in its small
      // windows: "where a rewrite starts" below builds one).
      expect(wide).toBeGreaterThan(late);
    },
    TIMEOUT,
  );
});

describe("where a rewrite starts", () => {
  /**
   * A task, two short reads, an edit with a long answer, then long reads: the short reads are due
   * first but save little, and a rewrite starting at them resends the long answer.
   */
  function history(longReads: number): StoredMessage[] {
    const { facts, add, call } = factLog();
    add({ role: "user", content: "Fix the parser." });
    call("s0", "read_file", { path: "src/a.ts" }, "a\n".repeat(20));
    call("s1", "read_file", { path: "src/b.ts" }, "b\n".repeat(20));
    call("e0", "Edit", { file_path: "src/b.ts", old_string: "b", new_string: "c" }, "edited");
    add({
      role: "assistant",
      content: "The parser reads one token ahead, so the fix is in peek().\n".repeat(120),
    });
    for (let index = 0; index < longReads; index++) {
      call(
        `l${index}`,
        "read_file",
        { path: `src/long${index}.ts` },
        `line ${index} of a long file\n`.repeat(80),
      );
    }
    return facts;
  }

  it("leaves early reductions that save little as they were sent when a later start resends less per token saved", () => {
    const facts = history(20);
    const profile = { maxInputTokens: 10_000 };
    let memo: ProjectionMemo | null = null;
    let previous: string[] = [];
    let checked = 0;
    for (const end of callPoints(facts)) {
      const input = { ...inputAt({ facts, profile, rewriteMinTokens: undefined }, end, memo) };
      const projection = project(input);
      memo = projection.memo ?? null;
      const sent = wire(projection);
      if (projection.rewrite?.cause === "fit") {
        // The short reads were due (a projection from scratch collapses them) ...
        const scratch = project({ ...input, memo: undefined });
        expect(wire(scratch).slice(0, 6)).not.toEqual(previous.slice(0, 6));
        // ... yet the rewrite kept them, the edit and the long answer as the cache saw them.
        expect(sent.slice(0, 9)).toEqual(previous.slice(0, 9));
        expect(projection.tokens).toBeLessThanOrEqual(projection.triggerTokens);
        const first = sent.findIndex((message, index) => message !== previous[index]);
        const resent = projection.messageTokens.slice(first).reduce((sum, tokens) => sum + tokens, 0);
        expect(projection.rewrite.resentTokens).toBe(resent);
        checked++;
      }
      previous = sent;
    }
    expect(checked).toBeGreaterThan(0);
  });
});
