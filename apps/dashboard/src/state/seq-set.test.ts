import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SeqSet } from "./seq-set.ts";

describe("SeqSet", () => {
  it("holds what a Set of the same seqs holds, and a copy never changes the original", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: -3, max: 2 ** 40 })), {
          maxLength: 60,
        }),
        fc.array(fc.integer({ min: -3, max: 6000 }), { maxLength: 30 }),
        (seqs, probes) => {
          const half = Math.floor(seqs.length / 2);
          const first = SeqSet.empty().copy();
          for (const seq of seqs.slice(0, half)) first.add(seq);
          const second = first.copy();
          for (const seq of seqs.slice(half)) second.add(seq);
          const firstSet = new Set(seqs.slice(0, half));
          const secondSet = new Set(seqs);
          for (const seq of [...probes, ...seqs]) {
            expect(first.has(seq)).toBe(firstSet.has(seq));
            expect(second.has(seq)).toBe(secondSet.has(seq));
          }
          expect([...second]).toEqual([...secondSet].sort((left, right) => left - right));
        },
      ),
      { numRuns: 300 },
    );
  });
});
