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

  /** The first call whose request must be rewritten to fit (8k window: trigger 6,000, limit 6,400). */
  function firstFit(reads: number): Projection {
    const walked = walk({
      facts: history(reads),
      profile: { maxInputTokens: 8_000 },
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

  it("the rewrite is taken when it buys more room than it resends", () => {
    // Nine reads: the record frees enough that the resent drafts buy ~3.3k of room.
    const projection = firstFit(9);
    const room = projection.triggerTokens - projection.tokens;
    expect(projection.rewrite?.resentTokens).toBeLessThanOrEqual(FIT_RESEND_PER_ROOM * room);
    expect(projection.needsCompaction).toBe(false);
    expect(projection.rewrite?.reason).not.toMatch(/LLM compaction instead/);
  });
});
