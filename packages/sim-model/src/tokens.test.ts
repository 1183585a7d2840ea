import fc from "fast-check";
import { BytePairEncodingCore } from "gpt-tokenizer/BytePairEncodingCore";
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { countPieceTokens } from "./heap-bpe.ts";
import { countText } from "./tokens.ts";

// The library's own quadratic merge of a piece taken whole: the reference for the heap.
const library = new BytePairEncodingCore({
  bytePairRankDecoder: o200kRanks,
  tokenSplitRegex: /[\s\S]+/gu,
  mergeCacheSize: 0,
});

// Alphabets that make long pre-tokenizer pieces (letters, symbols, CJK, emoji, combining marks).
const alphabets = [
  [..."abcdefghijklmnopqrstuvwxyz"],
  ["a"],
  ["a", "b"],
  [..."aAbBcCxYz"],
  [..."-=_*#~!"],
  [..."中文字符测试你好世界日本語"],
  ["😀", "🎉", "é", "a"],
  ["e", "\u0301", "n", "\u0303"],
  [..."0123456789"],
  [" ", "\t", "\n", "\u3000"],
];

const runOf = (alphabet: string[], length: number, seed: number) => {
  let text = "";
  let state = seed >>> 0;
  while (text.length < length) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += alphabet[state % alphabet.length];
  }
  return text;
};

const run = (min: number, max: number) =>
  fc
    .tuple(fc.constantFrom(...alphabets), fc.integer({ min, max }), fc.integer())
    .map(([alphabet, length, seed]) => runOf(alphabet, length, seed));

describe("sim token counting", () => {
  it("merges a piece with the heap exactly as the library's pair scan does", () => {
    fc.assert(
      fc.property(run(1, 1_500), (piece) => {
        expect(countPieceTokens(piece)).toBe(library.encodeNative(piece).length);
      }),
      { numRuns: 300 },
    );
  });

  it("counts texts with long pieces between ordinary words as gpt-tokenizer does", () => {
    const words = fc.constantFrom(" the", " cat", "\n", "  ", "'s", " 42", "!", " \n ");
    fc.assert(
      fc.property(fc.array(fc.oneof(words, run(200, 1_200)), { minLength: 1, maxLength: 8 }), (parts) => {
        const text = parts.join("");
        expect(countText(text)).toBe(countTokens(text));
      }),
      { numRuns: 150 },
    );
  });

  it("counts 1,000,000 characters without whitespace", () => {
    // "a" repeats merge into 8-character tokens: a million of them are 125,000 tokens.
    expect(countText("a".repeat(1_000_000))).toBe(125_000);
    const letters = runOf(alphabets[0] as string[], 1_000_000, 7);
    const tokens = countText(letters);
    // Every token holds at least one byte; random lowercase letters average about two a token.
    expect(tokens).toBeLessThanOrEqual(1_000_000);
    expect(tokens).toBeGreaterThan(400_000);
  });
});
