import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cheapestStart,
  chooseRewrite,
  dearRewrite,
  FIT_RESEND_PER_ROOM,
  type RewriteCandidate,
  type RewriteSituation,
} from "./rewrite-policy.ts";
import { asAssembled, type MemoSegment } from "./stable.ts";

const situationArbitrary: fc.Arbitrary<RewriteSituation> = fc
  .record({
    triggerTokens: fc.integer({ min: 100, max: 50_000 }),
    room: fc.integer({ min: 0, max: 20_000 }),
    tokens: fc.integer({ min: 0, max: 80_000 }),
    reducedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    afresh: fc.boolean(),
    intact: fc.boolean(),
    minTokens: fc.integer({ min: 1, max: 20_000 }),
    minRoomTokens: fc.integer({ min: 0, max: 10_000 }),
  })
  .map(({ triggerTokens, room, tokens, reducedShare, afresh, intact, minTokens, minRoomTokens }) => {
    const reducedTokens = Math.floor(tokens * reducedShare);
    return {
      tokens,
      reducedTokens,
      dueTokens: tokens - reducedTokens,
      afresh,
      intact,
      triggerTokens,
      limitTokens: triggerTokens + room,
      minTokens,
      minRoomTokens,
    };
  });

describe("chooseRewrite (property tests)", () => {
  it("rewrites only when it pays or must, and asks for compaction only instead of a rewrite that buys too little room", () => {
    let instead = 0;
    let fits = 0;
    fc.assert(
      fc.property(situationArbitrary, (situation) => {
        const choice = chooseRewrite(situation);
        const { tokens, reducedTokens, dueTokens, triggerTokens, limitTokens, minTokens, minRoomTokens } =
          situation;
        expect(choice.dueTokens).toBe(dueTokens);
        if (dueTokens === 0) expect(choice.rewritten).toBe(false);
        if (choice.compactionInstead) {
          instead++;
          // Only a rewrite the request needs to fit, leaving less than the least room.
          expect(choice.cause).toBe("fit");
          expect(tokens).toBeGreaterThan(limitTokens);
          expect(triggerTokens - reducedTokens).toBeLessThan(minRoomTokens);
          // The rewrite still stands, for when LLM compaction cannot run.
          expect(choice.rewritten).toBe(true);
        }
        if (dueTokens > 0 && reducedTokens <= triggerTokens && tokens > limitTokens) {
          fits++;
          expect(choice.cause).toBe("fit");
          expect(choice.compactionInstead).toBe(triggerTokens - reducedTokens < minRoomTokens);
        }
        // A request that fits keeps every message already sent unless the batch pays.
        if (dueTokens > 0 && reducedTokens <= triggerTokens && tokens <= limitTokens && !situation.afresh) {
          expect(choice.rewritten).toBe(dueTokens >= minTokens);
          if (choice.rewritten) expect(choice.cause).toBe("batch");
        }
        if (reducedTokens > triggerTokens && dueTokens > 0) expect(choice.cause).toBe("compaction");
        if (!situation.intact && !choice.rewritten) expect(choice.cause).toBe("history");
      }),
      { numRuns: 5_000 },
    );
    expect(instead).toBeGreaterThan(0);
    expect(fits).toBeGreaterThan(instead);
  });

  it("a rewrite to fit that leaves at least the least room is taken without compaction (16k defaults)", () => {
    const base = {
      afresh: false,
      intact: true,
      triggerTokens: 12_000,
      limitTokens: 12_800,
      minTokens: 2_400,
      minRoomTokens: 1_200,
    };
    const roomy = chooseRewrite({ ...base, tokens: 12_900, reducedTokens: 10_800, dueTokens: 2_100 });
    expect(roomy).toMatchObject({ rewritten: true, cause: "fit", compactionInstead: false });
    const tight = chooseRewrite({ ...base, tokens: 12_900, reducedTokens: 10_801, dueTokens: 2_099 });
    expect(tight).toMatchObject({ rewritten: true, cause: "fit", compactionInstead: true });
    expect(tight.reason).toMatch(/LLM compaction instead: the rewrite leaves 1199 < 1200/);
  });
});

describe("dearRewrite", () => {
  it("replaces a rewrite to fit with LLM compaction above 1.5 tokens resent per token of room", () => {
    expect(FIT_RESEND_PER_ROOM).toBe(1.5);
    // 16k window: 6,000 resent to leave 4,000 under the trigger is worth it, 6,001 is not.
    expect(dearRewrite(6_000, 4_000)).toBeNull();
    expect(dearRewrite(6_001, 4_000)).toBe(
      "the rewrite resends 6001 tokens to leave 4000 under the trigger (more than 1.5 per token)",
    );
    // No room at all: any resent token is too dear.
    expect(dearRewrite(1, 0)).not.toBeNull();
    expect(dearRewrite(1, -50)).toMatch(/leave -50 under the trigger/);
    expect(dearRewrite(0, 0)).toBeNull();
  });
});

describe("cheapestStart", () => {
  /** Task, two read calls with their results (of the given sizes), then the active call. */
  const history = (first: number, second: number) => {
    const shape: [number, "user" | "assistant" | "tool"][] = [
      [1_000, "user"],
      [100, "assistant"],
      [first, "tool"],
      [100, "assistant"],
      [second, "tool"],
      [100, "assistant"],
      [100, "tool"],
    ];
    const sent: MemoSegment[] = shape.map(([tokens, role], index) =>
      asAssembled({ message: { role, content: `m${index}` }, mark: "raw", tokens, sourceId: `m${index}` }),
    );
    /** The results at 2 and 4 shrink to 100 tokens when at or after `keepBefore`. */
    const reduce = (keepBefore: number): RewriteCandidate => {
      const segments = sent.map(
        (segment, index): MemoSegment =>
          (index === 2 || index === 4) && index >= keepBefore
            ? {
                ...segment,
                item: { ...segment.item, message: { role: "tool", content: "cut" }, tokens: 100 },
                stage: "truncate",
              }
            : segment,
      );
      return { segments, tokens: segments.reduce((sum, segment) => sum + segment.item.tokens, 0) };
    };
    return { sent, reduce };
  };

  it("starts at the later call when that resends fewer tokens per token saved", () => {
    const { sent, reduce } = history(300, 3_000);
    const full = reduce(0);
    // From the oldest: saves 3,100 and resends the 500 tokens from index 2 (0.16 per token saved).
    // From index 3: saves 2,900 and resends the 300 from index 4 (0.10).
    const chosen = cheapestStart(sent, full, { reduce, fits: () => true });
    expect(chosen.segments.slice(0, 4)).toEqual(sent.slice(0, 4));
    expect(chosen.tokens).toBe(1_800);
    // A later start that leaves the request over the trigger is never taken.
    expect(cheapestStart(sent, full, { reduce, fits: (candidate) => candidate.tokens <= 1_700 })).toBe(full);
  });

  it("keeps the rewrite from the oldest reduction when a later start saves little for what it resends", () => {
    const { sent, reduce } = history(3_000, 300);
    const full = reduce(0);
    // From index 3: saves 200 and resends 300 (1.5 per token saved, against 0.16).
    expect(cheapestStart(sent, full, { reduce, fits: () => true })).toBe(full);
  });
});
