/**
 * Token counting of text without whitespace (issue 10 item 1): time per size, as a ratio to counting
 * ordinary spaced text of the same size in the same run, and the longest event-loop stall while a
 * 1 MB message is counted (fastest of three runs each). `--plain` adds gpt-tokenizer's own count (quadratic) up to 80k characters.
 * Run: cd packages/compaction && npx tsx bench/long-pieces.ts [--plain]
 */
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { createTokenizer, estimateStoredTokens } from "../src/tokenizer.ts";

const SIZES = [10_000, 80_000, 200_000, 1_000_000];
const PLAIN_MAX = 80_000;

function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state % n;
  };
}

function fromAlphabet(alphabet: string[], length: number, seed: number): string {
  const next = seeded(seed);
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const part = alphabet[next(alphabet.length)] as string;
    parts.push(part);
    size += part.length;
  }
  return parts.join("").slice(0, length);
}

type Make = (length: number, seed: number) => string;

const kinds: Record<string, Make> = {
  "letters, no spaces": (length, seed) => fromAlphabet([..."abcdefghijklmnopqrstuvwxyz"], length, seed),
  "one letter repeated": (length) => "a".repeat(length),
  "CJK, no spaces": (length, seed) => fromAlphabet([..."中文字符测试你好世界日本語"], length, seed),
  "punctuation run": (length, seed) => fromAlphabet([..."-=_*#~!"], length, seed),
};
// The baseline: spaced words of random letters, so the library's merge cache does not help it either.
const spaced: Make = (length, seed) => {
  const next = seeded(seed);
  const words: string[] = [];
  let size = 0;
  while (size < length) {
    const word = Array.from({ length: 3 + next(6) }, () => String.fromCharCode(97 + next(26))).join("");
    words.push(word);
    size += word.length + 1;
  }
  return words.join(" ").slice(0, length);
};

/**
 * The fastest of three runs, each on new text (so no cache carries over): on a shared machine the
 * minimum is the least disturbed figure.
 */
function time(count: (text: string) => number, make: Make, size: number): number {
  let best = Number.POSITIVE_INFINITY;
  for (let run = 1; run <= 3; run++) {
    const text = make(size, 1_000 * size + run);
    const start = performance.now();
    count(text);
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const plain = process.argv.includes("--plain");
const count = (text: string) => createTokenizer("o200k_base").count(text);
count(spaced(20_000, 0)); // warm-up: vocabulary load and JIT
count(kinds["letters, no spaces"]?.(20_000, 0) ?? "");

console.log(`size       kind                   ms    x spaced baseline${plain ? "   gpt-tokenizer ms" : ""}`);
for (const size of SIZES) {
  const baseline = time(count, spaced, size);
  console.log(`${String(size).padEnd(10)} ${"spaced words".padEnd(20)} ${baseline.toFixed(1).padStart(8)}`);
  for (const [kind, make] of Object.entries(kinds)) {
    const ms = time(count, make, size);
    const before =
      plain && size <= PLAIN_MAX
        ? time((text) => countTokens(text), make, size)
            .toFixed(1)
            .padStart(12)
        : "";
    console.log(
      `${String(size).padEnd(10)} ${kind.padEnd(20)} ${ms.toFixed(1).padStart(8)} ${(ms / baseline).toFixed(2).padStart(8)}x ${before}`,
    );
  }
}

// The longest stall of the event loop while one 1 MB user message is counted, as on append.
for (const [kind, make] of Object.entries({ ...kinds, "spaced words": spaced })) {
  const message = { role: "user" as const, content: make(1_000_000, 7) };
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  await delay(20);
  estimateStoredTokens(message, createTokenizer("o200k_base"));
  await delay(20);
  histogram.disable();
  console.log(`1 MB message, ${kind}: longest event-loop stall ${(histogram.max / 1e6).toFixed(0)} ms`);
}
