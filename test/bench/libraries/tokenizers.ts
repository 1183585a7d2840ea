/**
 * Measures gpt-tokenizer vs js-tiktoken on the real corpus (all message text + tool-call JSON).
 * Run: LONGRUN_CORPUS_DIR=<folder of *.jsonl transcripts> npx tsx test/bench/libraries/tokenizers.ts
 * (js-tiktoken is one of the bench libraries, installed on first use: ../bench-libraries.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { installBenchLibraries } from "../bench-libraries.ts";

const configured = process.env.LONGRUN_CORPUS_DIR?.trim();
if (!configured) {
  console.error(
    "set LONGRUN_CORPUS_DIR to a folder of *.jsonl transcripts (the corpus is not in this repository)",
  );
  process.exit(2);
}
const corpusDir = resolve(configured);

function corpusTexts(): string[] {
  const texts: string[] = [];
  for (const file of readdirSync(corpusDir).filter((name) => name.endsWith(".jsonl"))) {
    for (const line of readFileSync(join(corpusDir, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const message = JSON.parse(line) as { content: unknown; tool_calls?: unknown };
      if (typeof message.content === "string") texts.push(message.content);
      if (message.tool_calls) texts.push(JSON.stringify(message.tool_calls));
    }
  }
  return texts;
}

function run(label: string, count: (text: string) => number, texts: string[]): void {
  // Warm-up pass so lazy initialisation and JIT are not measured.
  let total = 0;
  for (const text of texts) total += count(text);
  const rounds = 3;
  const start = performance.now();
  for (let round = 0; round < rounds; round++) for (const text of texts) count(text);
  const ms = (performance.now() - start) / rounds;
  console.log(`${label.padEnd(28)} tokens=${total} ms/pass=${ms.toFixed(1)}`);
}

const texts = corpusTexts();
const chars = texts.reduce((sum, text) => sum + text.length, 0);
console.log(`corpus: ${texts.length} texts, ${chars} chars`);

await installBenchLibraries();
let start = performance.now();
const gpt = await import("gpt-tokenizer/encoding/o200k_base");
console.log(`gpt-tokenizer o200k load ms=${(performance.now() - start).toFixed(1)}`);
start = performance.now();
const { Tiktoken } = await import("js-tiktoken/lite");
const ranks = (await import("js-tiktoken/ranks/o200k_base")).default;
const tiktoken = new Tiktoken(ranks);
console.log(`js-tiktoken o200k load ms=${(performance.now() - start).toFixed(1)}`);

run("gpt-tokenizer countTokens", (text) => gpt.countTokens(text), texts);
run("gpt-tokenizer encode.length", (text) => gpt.encode(text).length, texts);
run("js-tiktoken encode.length", (text) => tiktoken.encode(text).length, texts);
