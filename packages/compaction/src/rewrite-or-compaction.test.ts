import type { StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import type { Projection } from "./project.ts";
import { FIT_RESEND_PER_ROOM } from "./rewrite-policy.ts";
import { factLog, walk } from "./stable.test-helper.ts";

describe("a rewrite to fit or LLM compaction: what the rewrite resends per token of room it buys", () => {
  /** A task, `reads` long reads, a write (the reads' loop ends), then long drafts in prose. */
  function history(reads: number): StoredMessage[] {
    const { facts, add, call } = factLog();
    add({ role: "user", content: "Write the design note." });
    for (let index = 0; index < reads; index++)
      call(
        `r${index}`,
        "read_file",
        { path: `src/part${index}.ts` },
        `export const part${index} = ${index};\n`.repeat(60),
      );
    call("w", "write_file", { path: "docs/design.md", content: "# Design" }, "written");
    for (let index = 0; index < 30; index++) {
      add({
        role: "assistant",
        content: `Draft section ${index}: ${"the parser keeps every token it reads. ".repeat(30)}`,
      });
      add({ role: "user", content: `Go on with section ${index + 1}.` });
    }
    return facts;
  }

  /** The first call whose request must be rewritten to fit (8k window: trigger 6,000 at 75 %, limit 6,400). */
  function firstFit(reads: number): Projection {
    const walked = walk({
      facts: history(reads),
      profile: { maxInputTokens: 8_000, triggerRatio: 0.75 },
      rewriteMinTokens: undefined,
    });
    const fit = walked.find(({ projection }) => projection.rewrite?.cause === "fit");
    if (!fit) throw new Error("no rewrite to fit");
    return fit.projection;
  }

  it("compaction comes instead when the rewrite resends more than 1.5 tokens per token of room", () => {
    // Seven reads collapse into one record; the drafts after them are resent to leave ~2.1k of room.
    const projection = firstFit(7);
    const rewrite = projection.rewrite;
    const room = projection.triggerTokens - projection.tokens;
    expect(rewrite?.resentTokens).toBeGreaterThan(FIT_RESEND_PER_ROOM * room);
    expect(projection.needsCompaction).toBe(true);
    expect(rewrite?.reason).toBe(
      `needed to fit (6540 > limit 6400); LLM compaction instead: the rewrite resends ${rewrite?.resentTokens} tokens to leave ${room} under the trigger (more than 1.5 per token)`,
    );
    // The rewrite stands, for when compaction cannot run.
    expect(rewrite?.rewritten).toBe(true);
    expect(projection.tokens).toBeLessThanOrEqual(projection.triggerTokens);
  });

  // Within FIT_RESEND_PER_ROOM the cost model still compares the rewrite with LLM compaction (need
  // "cheaper", compaction-economy.ts). Per call, with g the growth per call, the rewrite costs
  // 0.9·resent·g/room + 0.05·(tokens + trigger) and compaction g·K + 0.05·(compacted + trigger), where
  // K = (summary call + 0.9·compacted)/(trigger − compacted) ≈ 0.71 at 8k (240-token summary at 4x,
  // 512-token ledger, compacted ≈ 1,454): the rewrite is kept while 0.9·resent/room < K − 0.05·(tokens −
  // compacted)/g. More reads collapse into one record, so the rewrite resends fewer drafts per token of room.

  it("the rewrite is taken when it buys more room than it resends and the cost model does not find compaction cheaper", () => {
    // Ten reads: resends 1,974 for 3,808 of room (0.52; 0.9 × 0.52 = 0.47 < 0.71 − 0.09), g ≈ 420.
    const projection = firstFit(10);
    const room = projection.triggerTokens - projection.tokens;
    expect(projection.rewrite?.resentTokens).toBeLessThanOrEqual(FIT_RESEND_PER_ROOM * room);
    expect(projection.needsCompaction).toBe(false);
    expect(projection.compactionNeed).toBeNull();
    expect(projection.rewrite?.reason).not.toMatch(/LLM compaction instead/);
  });

  it("a rewrite within the rule gives way to LLM compaction the cost model finds cheaper; it says so and the rewrite stands", () => {
    // Nine reads: resends 2,481 for 3,251 of room (0.76; 0.9 × 0.76 = 0.69 > 0.71 − 0.16), g ≈ 394.
    const projection = firstFit(9);
    const rewrite = projection.rewrite;
    const room = projection.triggerTokens - projection.tokens;
    expect(rewrite?.resentTokens).toBeLessThanOrEqual(FIT_RESEND_PER_ROOM * room);
    expect(rewrite?.reason).not.toMatch(/LLM compaction instead/);
    expect(projection.needsCompaction).toBe(true);
    expect(projection.compactionNeed?.need).toBe("cheaper");
    expect(projection.compactionNeed?.expectedSaving).toBeGreaterThan(0);
    expect(projection.reason).toMatch(
      /LLM compaction is cheaper than the deterministic path \(needed to fit \(\d+ > limit 6400\);/,
    );
    // The rewrite stands, for when compaction cannot run.
    expect(rewrite?.rewritten).toBe(true);
    expect(projection.tokens).toBeLessThanOrEqual(projection.triggerTokens);
  });
});
