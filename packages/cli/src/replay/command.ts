import { writeFile } from "node:fs/promises";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { costLines, costTable } from "./cost-lines.ts";
import { createProgressReporter, type ProgressStream } from "./progress.ts";
import { replayTranscript } from "./replay.ts";
import type { ReplayReport } from "./report.ts";
import { type ReplaySummary, retentionLines, summarizeReplays } from "./summary.ts";
import { readTranscript, type Transcript, TranscriptError } from "./transcript.ts";

export const REPLAY_USAGE = `Usage: longrun replay <transcript.jsonl>... --max-input-tokens N --out DIR [options]

Walks a transcript of OpenAI chat messages (one JSON message a line) as the facts of one agent and,
before every assistant message, runs the full context pipeline: projection, LLM compaction through
the built-in sim model, verification. Writes:
  DIR/requests/NNNN.json   the Chat Completions request that would be sent before message NNNN
  DIR/report.json          per call point: raw and projected tokens, stage savings, compactions,
                           refusals, and after the first compaction the retention of working state
                           (files written, last 10 files read, last error, TODOs still in the request)
                           and, per step without compaction, the share of the request a prefix cache
                           could serve from the previous request (cacheable-prefix share) against an
                           append-only history (previous size ÷ size), with totals; the billed-equivalent
                           cost of every call (summary calls as sent) beside the plain strategy's (append
                           until 75 % of the window, one summary of 5 % of it, keep the newest 10 %), and
                           forward-use recall (identifiers of the next assistant messages still in the request)
  DIR/history.jsonl        the messages each compaction summarized (sanitized)
With several transcripts, each gets DIR/<name>/ and DIR/summary.json pools their figures.

Options:
  --max-input-tokens N     the model's input window (required, e.g. 8000, 128000)
  --out DIR                output folder (required; old request files in DIR/requests are replaced)
  --model NAME             model string written into the requests (default: sim)
  --time-zone ZONE         IANA time zone told to the summarizer (default: UTC)
  --output-ratio R         output tokens cost R input tokens in the cost figures (default: 4)
  --background-ratio R     share of the trigger at which the older prefix is summarized in the background,
                           applied at the trigger if still valid (default: the profile's, 0.6; 0: never)
  --unrecorded-status      the log recorded no tool status: read each result from its own words (exit
                           code, failure or success text), else unknown (default: a recorded result is ok
                           unless its words show a failure)
  --forward-n N            assistant messages ahead that forward-use recall looks at (default: 10)
  --rewrite-min-tokens N   least tokens a batched rewrite of messages already sent must save
                           (default: three fifths of the trigger, at least the room between trigger and limit)
  --help                   show this help`;

/** Where the command writes; the process streams unless a test passes its own. */
export interface ReplayCommandIO {
  stdout: { write(text: string): unknown };
  stderr: ProgressStream;
}

/** A usage error: exit code 2 with the message and a pointer to --help. */
class UsageError extends Error {}

function positiveInteger(flag: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`missing --${flag} N`);
  if (!/^\d+$/.test(value) || Number(value) <= 0) {
    throw new UsageError(`--${flag} must be a positive integer, got "${value}"`);
  }
  return Number(value);
}

function positiveNumber(flag: string, value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) {
    throw new UsageError(`--${flag} must be a positive number, got "${value}"`);
  }
  return Number(value);
}

function shareBelowOne(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) >= 1) {
    throw new UsageError(`--background-ratio must be a number from 0 to below 1, got "${value}"`);
  }
  return Number(value);
}

function validTimeZone(zone: string): string {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone;
  } catch {
    throw new UsageError(`--time-zone: unknown time zone "${zone}"`);
  }
}

function parseReplayArgs(args: string[]) {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args,
      options: {
        "max-input-tokens": { type: "string" },
        out: { type: "string" },
        model: { type: "string" },
        "time-zone": { type: "string" },
        "rewrite-min-tokens": { type: "string" },
        "output-ratio": { type: "string" },
        "forward-n": { type: "string" },
        "background-ratio": { type: "string" },
        "unrecorded-status": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: true,
      strict: true,
    });
  }
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return null;
  if (positionals.length === 0) throw new UsageError("missing <transcript.jsonl>");
  const names = positionals.map((path) => basename(path).replace(/\.jsonl$/, ""));
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined)
    throw new UsageError(`two transcripts named "${twice}": their outputs would collide`);
  if (!values.out) throw new UsageError("missing --out DIR");
  if (values.model !== undefined && values.model.trim() === "") throw new UsageError("--model is empty");
  return {
    transcripts: positionals,
    maxInputTokens: positiveInteger("max-input-tokens", values["max-input-tokens"]),
    outDir: values.out,
    model: values.model,
    timeZone: validTimeZone(values["time-zone"] ?? "UTC"),
    rewriteMinTokens:
      values["rewrite-min-tokens"] === undefined
        ? undefined
        : positiveInteger("rewrite-min-tokens", values["rewrite-min-tokens"]),
    outputRatio:
      values["output-ratio"] === undefined
        ? undefined
        : positiveNumber("output-ratio", values["output-ratio"]),
    forwardN:
      values["forward-n"] === undefined ? undefined : positiveInteger("forward-n", values["forward-n"]),
    backgroundRatio:
      values["background-ratio"] === undefined ? undefined : shareBelowOne(values["background-ratio"]),
    unrecordedStatus: values["unrecorded-status"] === true,
  };
}

/** `longrun replay` (DESIGN §11): returns the exit code (0 done, 1 bad input, 2 bad usage). */
export async function runReplayCommand(
  args: string[],
  io: ReplayCommandIO = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  let options: ReturnType<typeof parseReplayArgs>;
  try {
    options = parseReplayArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`longrun replay: ${error.message}\nRun "longrun replay --help" for usage.\n`);
    return 2;
  }
  if (options === null) {
    io.stdout.write(`${REPLAY_USAGE}\n`);
    return 0;
  }
  const transcripts: Transcript[] = [];
  for (const path of options.transcripts) {
    try {
      transcripts.push(await readTranscript(path));
    } catch (error) {
      if (!(error instanceof TranscriptError)) throw error;
      io.stderr.write(`longrun replay: ${error.message}\n`);
      return 1;
    }
  }
  const several = transcripts.length > 1;
  const reports: ReplayReport[] = [];
  for (const transcript of transcripts) {
    const name = basename(transcript.source).replace(/\.jsonl$/, "");
    const outDir = several ? join(options.outDir, name) : options.outDir;
    const progress = createProgressReporter(io.stderr, `replay ${basename(transcript.source)}`);
    const started = Date.now();
    let report: ReplayReport;
    try {
      report = await replayTranscript({
        transcript,
        maxInputTokens: options.maxInputTokens,
        outDir,
        timeZone: options.timeZone,
        ...(options.model ? { model: options.model } : {}),
        ...(options.rewriteMinTokens === undefined ? {} : { rewriteMinTokens: options.rewriteMinTokens }),
        ...(options.outputRatio === undefined ? {} : { outputRatio: options.outputRatio }),
        ...(options.forwardN === undefined ? {} : { forwardN: options.forwardN }),
        ...(options.backgroundRatio === undefined ? {} : { backgroundRatio: options.backgroundRatio }),
        ...(options.unrecordedStatus ? { unrecordedStatus: true } : {}),
        onProgress: (update) => progress.update(update),
      });
    } finally {
      progress.finish();
    }
    reports.push(report);
    io.stdout.write(reportLines(report, resolve(outDir), (Date.now() - started) / 1000).join("\n"));
  }
  if (several) {
    const summary = summarizeReplays(reports);
    const path = join(resolve(options.outDir), "summary.json");
    await writeFile(path, `${JSON.stringify(summary, null, 2)}\n`);
    io.stdout.write(summaryLines(summary, path).join("\n"));
  }
  return 0;
}

function reportLines(report: ReplayReport, outDir: string, seconds: number): string[] {
  const { totals } = report;
  const refusals =
    totals.exhausted > 0
      ? `; context exhausted (no request): ${totals.exhausted}, of which the verbatim part alone fits: ${totals.exhaustedVerbatimFits}`
      : "";
  return [
    `${basename(report.transcript)}: replayed ${totals.calls} call points in ${seconds.toFixed(1)} s (window ${report.maxInputTokens}, limit ${report.limitTokens})`,
    `  compactions: ${totals.compactions}; max projected tokens: ${totals.maxProjectedTokens}`,
    `  saved by collapse ${totals.saved.collapse}, truncate ${totals.saved.truncate}, microcompact ${totals.saved.microcompact} tokens (summed over call points)`,
    `  requests written: ${totals.fits}${refusals}`,
    `  cache: cacheable-prefix share ${share(totals.cache.cacheableShare)}, append-only share ${share(totals.cache.appendOnlyShare)} (ratio ${share(totals.cache.ratio)}) over ${totals.cache.steps} steps without compaction; ${totals.cache.rewrites} rewrote a sent message`,
    "  retention after the first compaction (share of the raw prefix's facts still in the request):",
    ...retentionLines(totals.retention),
    outcomeLine(totals.unshownOutcomes, totals.compactions),
    ...costLines(totals.cost, totals.forwardUse),
    `  report: ${join(outDir, "report.json")}`,
    "",
  ];
}

/** Issue 32's check of the working state: what no ledger may claim. */
function outcomeLine(unshown: number, compactions: number): string {
  return `  ledger entries claiming an outcome their result does not show: ${unshown} (ledgers of ${compactions} compactions)`;
}

function share(value: number | null): string {
  return value === null ? "n/a" : value.toFixed(3);
}

function summaryLines(summary: ReplaySummary, path: string): string[] {
  const ledger = summary.ledgerTokens;
  const { cache } = summary;
  const medianWorst = (figure: { median: number; worst: number } | null) =>
    figure === null ? "n/a" : `${share(figure.median)} / ${share(figure.worst)}`;
  return [
    `all ${summary.transcripts} transcripts at ${summary.maxInputTokens}: ${summary.calls} call points, ${summary.compactions} compactions, ${summary.exhausted} refused (verbatim part fits: ${summary.exhaustedVerbatimFits})`,
    `  background summaries: ${summary.background.applied} applied of ${summary.background.started} made (${summary.background.started === 0 ? "n/a" : `${((summary.background.applied / summary.background.started) * 100).toFixed(0)} %`}); compactions that applied none: ${summary.compactions - summary.background.applied}`,
    "  retention after the first compaction, over every request of every transcript:",
    ...retentionLines(summary.retention),
    outcomeLine(summary.unshownOutcomes, summary.compactions),
    ...(ledger
      ? [
          `  ledger tokens per compaction: median ${ledger.median}, p90 ${ledger.p90}, max ${ledger.max} (${((ledger.max / summary.maxInputTokens) * 100).toFixed(1)} % of the window)`,
        ]
      : []),
    `  cache (median / worst file): cacheable-prefix share ${medianWorst(cache.cacheableShare)}, append-only share ${medianWorst(cache.appendOnlyShare)}, ratio ${medianWorst(cache.ratio)}`,
    ...costTable([
      ...summary.cost.files.map((file, at) => ({
        name: file.transcript,
        cost: file.cost,
        forwardUse: summary.forwardUse.files[at]?.forwardUse ?? summary.forwardUse.pooled,
      })),
      { name: "pooled", cost: summary.cost.pooled, forwardUse: summary.forwardUse.pooled },
    ]),
    `  summary: ${path}`,
    "",
  ];
}
