import type { TokenizerFamily } from "@longrun/protocol";
import fc from "fast-check";
import cl100kRanks from "gpt-tokenizer/bpeRanks/cl100k_base";
import o200kRanks from "gpt-tokenizer/bpeRanks/o200k_base";
import { describe, expect, it } from "vitest";
import { countText, createEncoding, type Encoding, LONG_PIECE } from "./bpe-count.ts";
import { countLongPiece, MAX_TOKEN_BYTES, utf8Length } from "./long-piece.ts";

const families: TokenizerFamily[] = ["o200k_base", "cl100k_base"];
const encodings = Object.fromEntries(families.map((family) => [family, createEncoding(family)])) as Record<
  TokenizerFamily,
  Encoding
>;

/** What gpt-tokenizer alone hands to its quadratic merge, and how much of it. */
function recording(encoding: Encoding) {
  const work = { longestCounted: 0, longestEncoded: 0, encodedChars: 0 };
  const split = new RegExp(encoding.split);
  const longestPiece = (text: string) => Math.max(0, ...[...text.matchAll(split)].map((m) => m[0].length));
  const recorder: Encoding = {
    ...encoding,
    count(text) {
      work.longestCounted = Math.max(work.longestCounted, longestPiece(text));
      return encoding.count(text);
    },
    encodePiece(text) {
      work.longestEncoded = Math.max(work.longestEncoded, text.length);
      work.encodedChars += text.length;
      return encoding.encodePiece(text);
    },
  };
  return { recorder, work };
}

// Runs the pre-tokenizer keeps as one piece, from the alphabets that make long pieces.
const runAlphabets: string[][] = [
  [..."abcdefghijklmnopqrstuvwxyz"],
  ["a"],
  ["a", "b"],
  [..."aAbBcCxYz"],
  [..."ABCDEFXYZ"],
  [..."-=_*#~!"],
  ["="],
  [" ", " ", " ", "\t"],
  [" ", "\n", "\r\n", "\u3000", "\u00a0"],
  [..."中文字符测试你好世界日本語"],
  ["😀", "🎉", "é", "a"],
  ["\ud800", "x", "\udfff", "🎉"],
  ["e", "\u0301", "n", "\u0303"],
  ["abc", "'s", "'ll", "x", "'", "'RE"],
  ["!", "/", "\n", "/\n"],
];

const runArbitrary = fc
  .tuple(fc.constantFrom(...runAlphabets), fc.integer({ min: LONG_PIECE + 1, max: 1_200 }), fc.integer())
  .map(([alphabet, length, seed]) => {
    let text = "";
    let state = seed >>> 0;
    while (text.length < length) {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      text += alphabet[state % alphabet.length];
    }
    return text;
  });

// What may sit right before or after a run: whitespace whose pieces depend on the next character.
const junctionArbitrary = fc.constantFrom(
  " ",
  "\t",
  " \t",
  "  ",
  "\n",
  " \n ",
  "\r\n",
  "1",
  "'",
  "\u3000",
  "!\n",
);

const textArbitrary = fc
  .array(fc.oneof(runArbitrary, junctionArbitrary, fc.string({ unit: "binary", maxLength: 40 })), {
    minLength: 1,
    maxLength: 6,
  })
  .map((parts) => parts.join(""));

describe("BPE counting of long unbroken runs", () => {
  it("counts exactly what gpt-tokenizer counts, for texts with long runs of every kind", () => {
    for (const family of families) {
      const encoding = encodings[family];
      fc.assert(
        fc.property(textArbitrary, (text) => {
          expect(countText(encoding, text)).toBe(encoding.count(text));
        }),
        { numRuns: 150 },
      );
    }
  });

  it("never hands gpt-tokenizer a piece longer than LONG_PIECE, and encodes each character about once", () => {
    const length = 200_000;
    for (const family of families) {
      const { recorder, work } = recording(encodings[family]);
      const text = `start ${"x".repeat(length)} middle ${"=".repeat(length)} end`;
      countText(recorder, text);
      expect(work.longestCounted).toBeLessThanOrEqual(LONG_PIECE);
      // A window spans a few of the longest tokens at most, however long the run.
      expect(work.longestEncoded).toBeLessThanOrEqual(10 * MAX_TOKEN_BYTES);
      expect(work.encodedChars).toBeLessThan(2 * 2 * length);
    }
  });

  it("counts 1,000,000 characters without whitespace as BPE does, linearly", () => {
    const encoding = encodings.o200k_base;
    // "a" repeats merge into 8-character tokens: 8,000 of them are 1,000 tokens, a million 125,000.
    expect(encoding.count("a".repeat(8_000))).toBe(1_000);
    expect(countText(encoding, "a".repeat(1_000_000))).toBe(125_000);
    const { recorder, work } = recording(encoding);
    const letters = Array.from({ length: 1_000_000 }, (_, index) => "etaoinshrdlu"[(index * 7919) % 12]).join(
      "",
    );
    const count = countText(recorder, letters);
    expect(count).toBeGreaterThan(200_000);
    expect(work.encodedChars).toBeLessThan(1.5 * letters.length);
  });

  it("falls back to the byte length, an upper bound, when windows share no token", () => {
    const piece = "a".repeat(2_000);
    const encoding = encodings.o200k_base;
    // The first window holds 8-byte "aaaaaaaa" tokens; later ones, read as one-byte tokens, share none.
    let windows = 0;
    const disagreeing: Encoding = {
      ...encoding,
      encodePiece: (text) => (++windows === 1 ? encoding.encodePiece(text) : Array.from(text, () => 0)),
    };
    expect(countLongPiece(piece, disagreeing)).toBe(utf8Length(piece));
    expect(utf8Length(piece)).toBeGreaterThanOrEqual(encoding.count(piece));
  });

  it("knows the longest token of both vocabularies", () => {
    const encoder = new TextEncoder();
    for (const ranks of [o200kRanks, cl100kRanks]) {
      const longest = ranks.reduce<number>(
        (max, value) =>
          Math.max(max, typeof value === "string" ? encoder.encode(value).length : value.length),
        0,
      );
      expect(longest).toBe(MAX_TOKEN_BYTES);
    }
  });

  it("measures UTF-8 length as the encoder does, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
      }),
    );
  });
});
