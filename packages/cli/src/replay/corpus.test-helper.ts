import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { ChatMessage } from "@longrun/protocol";
import {
  countRequest,
  SIM_SCRIPTS,
  type SimModelServer,
  SUMMARY_MAX_TOKENS,
  simModelName,
  startSimModel,
} from "@longrun/sim-model";
import { corpusDirOrSkip, corpusFiles, simTranscript, writeTranscript } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayTranscript, requestFileName } from "./replay.ts";
import type { ReplayReport, ReplayStep } from "./report.ts";
import { endpointSummarizer } from "./sim-summarizer.ts";
import { callPoints, readTranscript, type Transcript } from "./transcript.ts";

/** A request body as written to DIR/requests. */
interface RequestBody {
  model: string;
  messages: ChatMessage[];
  tools: unknown[];
}

/** The wire fields a verbatim copy must keep. */
function wire(message: ChatMessage): Record<string, unknown> {
  const fields: Record<string, unknown> = { role: message.role, content: message.content };
  if (message.name !== undefined) fields.name = message.name;
  if (message.tool_calls && message.tool_calls.length > 0) fields.tool_calls = message.tool_calls;
  if (message.tool_call_id !== undefined) fields.tool_call_id = message.tool_call_id;
  return fields;
}

/** The most recent assistant tool-call message before `index` and its results, when they are the tail. */
function activeLoop(transcript: Transcript, index: number): ChatMessage[] | null {
  let start = index - 1;
  while (start >= 0 && transcript.messages[start]?.role === "tool") start--;
  const call = transcript.messages[start];
  if (start < 0 || call?.role !== "assistant" || !call.tool_calls?.length) return null;
  return transcript.messages.slice(start, index);
}

function latestUser(transcript: Transcript, index: number): ChatMessage | null {
  for (let at = index - 1; at >= transcript.firstFactIndex; at--) {
    const message = transcript.messages[at] as ChatMessage;
    if (message.role === "user") return message;
  }
  return null;
}

/** I3 and I5 on one written request. */
function checkRequestContent(
  transcript: Transcript,
  step: ReplayStep,
  body: RequestBody,
  afterCompaction: boolean,
) {
  const sent = body.messages.map(wire);
  const user = latestUser(transcript, step.index);
  if (user) {
    expect(
      sent.some((message) => isDeepStrictEqual(message, wire(user))),
      `request ${step.index} lacks the latest user message verbatim`,
    ).toBe(true);
  }
  const loop = activeLoop(transcript, step.index);
  if (loop) {
    // The call and every result verbatim at the end; results in call order (repair's order).
    const [call, ...results] = loop.map(wire);
    const tail = sent.slice(-loop.length);
    expect(tail[0], `request ${step.index}: active tool call`).toEqual(call);
    const byId = (message: Record<string, unknown>) => String(message.tool_call_id);
    const sorted = (messages: Record<string, unknown>[]) =>
      [...messages].sort((a, b) => byId(a).localeCompare(byId(b)));
    expect(sorted(tail.slice(1)), `request ${step.index}: active tool results`).toEqual(sorted(results));
  }
  if (afterCompaction) {
    for (const message of body.messages) {
      expect(message.reasoning_details, `request ${step.index}: reasoning after compaction`).toBeUndefined();
      expect(message.reasoning_content, `request ${step.index}: reasoning after compaction`).toBeUndefined();
    }
  }
}

/**
 * A refused call point must be one that no compaction could fit: what stays verbatim (system prompt,
 * latest user message, active tool loop) plus a full-size summary comes near the limit or over it.
 */
function checkExhaustion(transcript: Transcript, step: ReplayStep, report: ReplayReport) {
  const loop = activeLoop(transcript, step.index) ?? [];
  const user = latestUser(transcript, step.index);
  const verbatim = [
    ...(transcript.systemPrompt !== null ? [transcript.messages[0] as ChatMessage] : []),
    ...(user && !loop.includes(user) ? [user] : []),
    ...loop,
  ];
  const required = countRequest({ model: "sim", messages: verbatim } as Parameters<typeof countRequest>[0]);
  expect(step.reason).toMatch(/^context exhausted/);
  expect(required + SUMMARY_MAX_TOKENS, `call point ${step.index} refused`).toBeGreaterThan(
    report.limitTokens * 0.9,
  );
  // Degrade before refusing: only a verbatim part over the limit is refused.
  expect(step.verbatimTokens, `call point ${step.index}: ${step.reason}`).toBeGreaterThan(report.limitTokens);
}

async function mapLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Per-file figures printed after the run (they go into the helper's report). */
export interface CorpusRow {
  file: string;
  calls: number;
  compactions: number;
  exhausted: number;
  maxProjectedTokens: number;
  maxPromptTokens: number;
  collapse: number;
  truncate: number;
  microcompact: number;
  validated: number;
  replayMs: number;
  /** Cacheable-prefix share, append-only share and their ratio over steps without compaction. */
  cacheable: number | null;
  appendOnly: number | null;
  cacheRatio: number | null;
  rewrites: number;
  /** Retention means after the first compaction (null: no such facts). */
  written: number | null;
  read: number | null;
  error: number | null;
  /** Billed-equivalent cost, longrun ÷ plain (openai, anthropic), and the main requests' and summary calls' ratios (openai). */
  costOpenai: number | null;
  costAnthropic: number | null;
  mainOpenai: number | null;
  summariesOpenai: number | null;
  plainCompactions: number;
  /** Forward-use recall after the first compaction: whole request, and without the summarizer's text. */
  forwardWhole: number | null;
  forwardWithoutSummary: number | null;
}

/** A transcript to replay: a corpus file, or a sim transcript generated on the spot. */
interface TranscriptSource {
  name: string;
  /** The transcript's path, written into `scratch` first when generated. */
  path(simBaseURL: string, scratch: string): Promise<string>;
}

/** Tool-calling turns of each generated sim transcript: enough for several compactions at 8k. */
export const SIM_TRANSCRIPT_STEPS = 40;

/**
 * Replays transcripts at one window and checks every written request against the strict sim model
 * (200, prompt tokens within the window) and the invariants. With LONGRUN_CORPUS_DIR, the real
 * transcripts there (opt-in: other people's data, never in this repository); without it, one sim
 * transcript per scripted agent. `validate(step, ordinal)` picks which requests are POSTed (all of
 * them unless sampling); the content checks run on every request.
 */
export function describeCorpusWindow(
  window: number,
  validate: (step: ReplayStep, ordinal: number) => boolean = () => true,
) {
  const corpus = corpusDirOrSkip(`the real-transcript replay at a ${window}-token window`);
  if (corpus) {
    const sources = corpusFiles(corpus).map((name) => ({ name, path: async () => join(corpus, name) }));
    describeWindow(`replay of the corpus at a ${window}-token window`, window, validate, sources);
    return;
  }
  const sources = SIM_SCRIPTS.map((script) => ({
    name: `sim-${script}.jsonl`,
    async path(simBaseURL: string, scratch: string) {
      const messages = await simTranscript({ baseURL: simBaseURL, script, steps: SIM_TRANSCRIPT_STEPS });
      await mkdir(join(scratch, "transcripts"), { recursive: true });
      return writeTranscript(join(scratch, "transcripts", `sim-${script}.jsonl`), messages);
    },
  }));
  describeWindow(`replay of sim transcripts at a ${window}-token window`, window, validate, sources);
}

function describeWindow(
  title: string,
  window: number,
  validate: (step: ReplayStep, ordinal: number) => boolean,
  sources: TranscriptSource[],
) {
  describe(title, () => {
    let sim: SimModelServer;
    let outRoot: string;
    const rows: CorpusRow[] = [];

    beforeAll(async () => {
      sim = await startSimModel({ maxInputTokens: window, logLimit: 10, logBodies: false });
      outRoot = await mkdtemp(join(tmpdir(), `longrun-replay-${window}-`));
    });
    afterAll(async () => {
      await sim?.close();
      if (outRoot) await rm(outRoot, { recursive: true, force: true });
      console.log(`replay at ${window}:\n${JSON.stringify(rows, null, 1)}`);
    });

    for (const { name: file, path } of sources) {
      it(`${file}: one valid request per call point`, { timeout: 150_000 }, async () => {
        const transcript = await readTranscript(await path(sim.baseURL, outRoot));
        const outDir = join(outRoot, file);
        const model = simModelName({ ctx: window });
        const started = Date.now();
        const report = await replayTranscript({
          transcript,
          maxInputTokens: window,
          outDir,
          summarizer: endpointSummarizer({ baseURL: sim.baseURL, model }),
        });
        const replayMs = Date.now() - started;
        const saved = JSON.parse(await readFile(join(outDir, "report.json"), "utf8")) as ReplayReport;
        expect(saved).toEqual(report);

        // One step per call point; a request for each, unless the context was exhausted (I6).
        expect(report.steps.map((step) => step.index)).toEqual(callPoints(transcript));
        const written = (await readdir(join(outDir, "requests"))).sort();
        const ok = report.steps.filter((step) => step.status === "ok");
        expect(written).toEqual(ok.map((step) => requestFileName(step.index)));
        expect(report.totals.fits + report.totals.exhausted).toBe(report.steps.length);
        for (const step of report.steps) {
          if (step.status === "context_exhausted") checkExhaustion(transcript, step, report);
        }
        // Nearly every call point fits: refusals are rare, real, oversized tool loops.
        expect(report.totals.exhausted).toBeLessThanOrEqual(Math.ceil(report.steps.length * 0.2));

        let compacted = false;
        let maxPromptTokens = 0;
        let validated = 0;
        const toPost: { step: ReplayStep; text: string }[] = [];
        for (const [ordinal, step] of report.steps.entries()) {
          compacted ||= step.compaction !== undefined;
          if (step.status !== "ok") continue;
          const text = await readFile(join(outDir, "requests", requestFileName(step.index)), "utf8");
          const body = JSON.parse(text) as RequestBody;
          expect(Object.keys(body).sort()).toEqual(["messages", "model", "tools"]);
          checkRequestContent(transcript, step, body, compacted);
          if (validate(step, ordinal)) toPost.push({ step, text });
        }
        await mapLimit(toPost, 3, async ({ step, text }) => {
          const body = JSON.parse(text) as RequestBody;
          const response = await fetch(`${sim.baseURL}/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ...body, model, stream: false }),
          });
          const answer = (await response.json()) as { usage?: { prompt_tokens: number } };
          expect(response.status, `request ${step.index}: ${JSON.stringify(answer).slice(0, 300)}`).toBe(200);
          // prompt_tokens is the sim's own countRequest of the body.
          const promptTokens = answer.usage?.prompt_tokens ?? Number.POSITIVE_INFINITY;
          expect(promptTokens).toBeLessThanOrEqual(window);
          maxPromptTokens = Math.max(maxPromptTokens, promptTokens);
          validated += 1;
        });
        // A prefix cache never serves more than an append-only history would keep.
        expect(report.totals.cache.cacheableShare ?? 0).toBeLessThanOrEqual(
          report.totals.cache.appendOnlyShare ?? 0,
        );
        rows.push({
          file,
          calls: report.totals.calls,
          compactions: report.totals.compactions,
          exhausted: report.totals.exhausted,
          maxProjectedTokens: report.totals.maxProjectedTokens,
          maxPromptTokens,
          ...report.totals.saved,
          validated,
          replayMs,
          cacheable: report.totals.cache.cacheableShare,
          appendOnly: report.totals.cache.appendOnlyShare,
          cacheRatio: report.totals.cache.ratio,
          rewrites: report.totals.cache.rewrites,
          written: report.totals.retention.filesWritten.mean,
          read: report.totals.retention.filesRead.mean,
          error: report.totals.retention.lastError.mean,
          costOpenai: report.totals.cost.ratio.total.openai,
          costAnthropic: report.totals.cost.ratio.total.anthropic,
          mainOpenai: report.totals.cost.ratio.main.openai,
          summariesOpenai: report.totals.cost.ratio.summaries.openai,
          plainCompactions: report.totals.cost.plain.compactions,
          forwardWhole: report.totals.forwardUse.whole,
          forwardWithoutSummary: report.totals.forwardUse.withoutSummary,
        });
        await rm(outDir, { recursive: true, force: true });
      });
    }
  });
}
