import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";

/**
 * The real-transcript corpus: a folder of `*.jsonl` chat transcripts named by LONGRUN_CORPUS_DIR.
 * Those transcripts are other people's data and never live in this repository, so the suite that reads
 * them is opt-in (`.ci/run` sets the variable); without it, corpus tests skip with one line.
 */
export function corpusDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const value = env.LONGRUN_CORPUS_DIR?.trim();
  if (!value) return null;
  const dir = resolve(value);
  // Set but wrong is a mistake to report, not a reason to skip quietly.
  if (!existsSync(dir)) throw new Error(`LONGRUN_CORPUS_DIR=${value}: no such folder (${dir})`);
  return dir;
}

/** The line a corpus test file prints when the opt-in suite is off. */
export function corpusSkipNotice(suite: string): string {
  return `skipped ${suite}: set LONGRUN_CORPUS_DIR to a folder of *.jsonl transcripts to run it (.ci/run sets it)`;
}

/** The corpus directory, or null after printing the skip line for `suite`. */
export function corpusDirOrSkip(suite: string): string | null {
  const dir = corpusDir();
  if (!dir) console.info(corpusSkipNotice(suite));
  return dir;
}

/** The `*.jsonl` files of the corpus whose names start with `prefix`, sorted. */
export function corpusFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".jsonl") && name.startsWith(prefix))
    .sort();
}
