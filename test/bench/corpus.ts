import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ChatMessage } from "@longrun/protocol";

/** One corpus transcript: its file name and its messages in order. */
export interface CorpusFile {
  name: string;
  messages: ChatMessage[];
}

/** Repository root, resolved from this file (test/bench/corpus.ts). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Corpus directory: LONGRUN_CORPUS_DIR, else ../shared/corpus beside the repo. */
export function corpusDir(): string {
  const override = process.env.LONGRUN_CORPUS_DIR;
  return override ? path.resolve(override) : path.resolve(repoRoot, "../shared/corpus");
}

/** Parse one JSONL transcript into validated chat messages. */
export function parseTranscript(text: string): ChatMessage[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => ChatMessage.parse(JSON.parse(line)));
}

/** Load every *.jsonl transcript of the corpus, sorted by file name. */
export function loadCorpus(dir: string = corpusDir()): CorpusFile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => ({
      name: name.replace(/\.jsonl$/, ""),
      messages: parseTranscript(readFileSync(path.join(dir, name), "utf8")),
    }));
}

/** Call points: every index i where message i is an assistant message; the input is messages[0..i). */
export function callPoints(messages: readonly ChatMessage[]): number[] {
  const points: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === "assistant" && index > 0) points.push(index);
  });
  return points;
}

/** Pick about `count` items spread evenly over `items` (all of them when count >= length). */
export function subsampleEvenly<T>(items: readonly T[], count: number): T[] {
  if (count >= items.length) return [...items];
  if (count <= 0) return [];
  const picked: T[] = [];
  const step = items.length / count;
  for (let k = 0; k < count; k++) {
    const item = items[Math.floor(k * step + step / 2)];
    if (item !== undefined) picked.push(item);
  }
  return picked;
}
