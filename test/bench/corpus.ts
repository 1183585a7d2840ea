import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ChatMessage } from "@longrun/protocol";
import { SIM_SCRIPTS } from "@longrun/sim-model";
import { corpusDir, simTranscript, startTestSimModel } from "@longrun/testing";

/** One corpus transcript: its file name and its messages in order. */
export interface CorpusFile {
  name: string;
  messages: ChatMessage[];
}

/** Parse one JSONL transcript into validated chat messages. */
export function parseTranscript(text: string): ChatMessage[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => ChatMessage.parse(JSON.parse(line)));
}

/** Load every *.jsonl transcript of a folder, sorted by file name. */
export function loadCorpus(dir: string): CorpusFile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl"))
    .sort()
    .map((name) => ({
      name: name.replace(/\.jsonl$/, ""),
      messages: parseTranscript(readFileSync(path.join(dir, name), "utf8")),
    }));
}

/** One sim transcript per scripted agent, `steps` tool-calling turns each (made offline, deterministic). */
export async function simCorpus(steps: number): Promise<CorpusFile[]> {
  const sim = await startTestSimModel({ logBodies: false });
  try {
    const files: CorpusFile[] = [];
    for (const script of SIM_SCRIPTS) {
      const messages = await simTranscript({ baseURL: sim.baseURL, script, steps });
      files.push({ name: `sim-${script}`, messages: messages.map((message) => ChatMessage.parse(message)) });
    }
    return files;
  } finally {
    await sim.close();
  }
}

/**
 * The bench's transcripts: the real corpus when LONGRUN_CORPUS_DIR names one (other people's data,
 * never in this repository), else sim transcripts of every scripted agent, said so on stdout.
 */
export async function benchCorpus(simSteps = 80): Promise<CorpusFile[]> {
  const dir = corpusDir();
  if (dir) return loadCorpus(dir);
  console.log(
    `LONGRUN_CORPUS_DIR is not set: measuring on sim transcripts (${simSteps} steps per scripted agent)`,
  );
  return simCorpus(simSteps);
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
