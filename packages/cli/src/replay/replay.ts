import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createTokenizer, DEFAULT_OUTPUT_RATIO, estimateStoredTokens, thresholds } from "@longrun/compaction";
import { openStore, type Store } from "@longrun/store";
import { costTotalsOf, forwardUseTotalOf, strategyCostOf } from "./cost-report.ts";
import { DEFAULT_FORWARD_N } from "./forward-use.ts";
import { replayPlain } from "./plain-replay.ts";
import { ReplayWalk } from "./replay-walk.ts";
import { type ReplayReport, totalsOf } from "./report.ts";
import { type ReplaySummarizer, type Summarizer, startSimSummarizer } from "./sim-summarizer.ts";
import type { Transcript } from "./transcript.ts";

export { requestFileName } from "./replay-walk.ts";

/** Progress after each call point. */
export interface ReplayProgress {
  done: number;
  total: number;
  index: number;
  compactions: number;
  exhausted: number;
}

/** Input of replayTranscript. */
export interface ReplayOptions {
  transcript: Transcript;
  maxInputTokens: number;
  /** Output folder: requests/NNNN.json, report.json, history.jsonl. */
  outDir: string;
  /** Model string written into each request (default "sim"). */
  model?: string;
  /** Time zone told to the summarizer (default UTC, so output is the same everywhere). */
  timeZone?: string;
  /** Clock origin: message k is taken to happen at startAt + k minutes (no idle gaps). */
  startAt?: number;
  /** Least tokens a batched rewrite of sent messages must save (default: the projection's). */
  rewriteMinTokens?: number;
  /** Output tokens cost this many input tokens (default 4). */
  outputRatio?: number;
  /** Share of the trigger at which a background summary starts (default: the profile's; 0: never). */
  backgroundRatio?: number;
  /** Assistant messages looked ahead by forward-use recall (default 10). */
  forwardN?: number;
  /**
   * The log recorded no tool status (OpenHands without its metadata, Cline exports): results get none,
   * so the ledger reads each from its own words and calls the rest unknown (default: each is `ok`).
   */
  unrecordedStatus?: boolean;
  /** Summaries come from here; default: the sim model started in-process for this replay. */
  summarizer?: Summarizer;
  onProgress?: (progress: ReplayProgress) => void;
}

/**
 * Walks a transcript as the facts of one agent and, before every assistant message, runs the full
 * pipeline (DESIGN §5, §11): project → LLM compaction through the summarizer when needed (event in a
 * temporary store) → project again → verify. Writes each request that may be sent and the report.
 */
export async function replayTranscript(options: ReplayOptions): Promise<ReplayReport> {
  const outDir = resolve(options.outDir);
  const requestsDir = join(outDir, "requests");
  await mkdir(requestsDir, { recursive: true });
  await clearOldRequests(requestsDir);
  const historyFile = join(outDir, "history.jsonl");
  await rm(historyFile, { force: true });

  let ownSummarizer: ReplaySummarizer | null = null;
  let store: Store | null = null;
  const storeDir = await mkdtemp(join(tmpdir(), "longrun-replay-"));
  try {
    let summarize = options.summarizer;
    if (!summarize) {
      ownSummarizer = await startSimSummarizer(options.maxInputTokens);
      summarize = ownSummarizer.summarize;
    }
    const tokenizer = createTokenizer("o200k_base");
    store = await openStore({
      url: join(storeDir, "replay.db"),
      countTokens: (message) => estimateStoredTokens(message, tokenizer),
    });
    const walk = new ReplayWalk(store, options, tokenizer, summarize, historyFile, requestsDir);
    const steps = await walk.run();
    const limits = thresholds(walk.profile);
    const outputRatio = options.outputRatio ?? DEFAULT_OUTPUT_RATIO;
    // The baseline on the same transcript, tools, window and tokenizer, held to the same limit.
    const plain = replayPlain({
      transcript: options.transcript,
      tools: walk.tools,
      tokenizer,
      counter: walk.meter.counter,
      windowTokens: options.maxInputTokens,
      limitTokens: limits.limitTokens,
      outputRatio,
    });
    const longrunCost = strategyCostOf(
      steps.map((step) => ({
        index: step.index,
        ...step.cost,
        ...(step.compaction ? { compaction: step.compaction } : {}),
      })),
    );
    const forwardUse = forwardUseTotalOf(
      steps.flatMap((step) => (step.forwardUse ? [step.forwardUse] : [])),
      options.forwardN ?? DEFAULT_FORWARD_N,
    );
    const report: ReplayReport = {
      transcript: options.transcript.source,
      model: walk.profile.model,
      maxInputTokens: options.maxInputTokens,
      triggerTokens: limits.triggerTokens,
      limitTokens: limits.limitTokens,
      steps,
      plain: { compactions: plain.compactions },
      totals: totalsOf(steps, limits.limitTokens, {
        cost: costTotalsOf(outputRatio, longrunCost, strategyCostOf(plain.points)),
        forwardUse,
      }),
    };
    await writeFile(join(outDir, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    await store?.close();
    await rm(storeDir, { recursive: true, force: true });
    await ownSummarizer?.close();
  }
}

/** Request files of an earlier replay into the same folder would mix with this one's. */
async function clearOldRequests(requestsDir: string): Promise<void> {
  const names = await readdir(requestsDir);
  await Promise.all(
    names.filter((name) => /^\d{4,}\.json$/.test(name)).map((name) => rm(join(requestsDir, name))),
  );
}
