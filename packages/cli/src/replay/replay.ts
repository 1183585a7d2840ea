import { appendFile, mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  compactionFields,
  createTokenizer,
  DEFAULT_RESTORATION_BUDGETS,
  estimateStoredTokens,
  type FittedFields,
  fitCompaction,
  ledgerSources,
  type Projection,
  type ProjectionInput,
  type ProjectionMemo,
  planCompaction,
  project,
  ReductionCache,
  sanitizeMessages,
  type Tokenizer,
  type ToolSpec,
  thresholds,
  toChatMessages,
  updateLedger,
  verbatimPart,
  verifyProjection,
} from "@longrun/compaction";
import { type ChatMessage, type CompactionEvent, ModelProfile, type StoredMessage } from "@longrun/protocol";
import { openStore, type Store } from "@longrun/store";
import { cacheShareOf, type SentRequest } from "./cache-share.ts";
import { type ReplayReport, type ReplayStep, totalsOf } from "./report.ts";
import { retentionOf, WorkingFactsTracker } from "./retention.ts";
import { type ReplaySummarizer, type Summarizer, startSimSummarizer } from "./sim-summarizer.ts";
import { deriveToolSchemas } from "./tool-schemas.ts";
import { callPoints, type Transcript } from "./transcript.ts";
import { toMessageInput } from "./transcript-facts.ts";

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
  /** Summaries come from here; default: the sim model started in-process for this replay. */
  summarizer?: Summarizer;
  onProgress?: (progress: ReplayProgress) => void;
}

const AGENT_ID = "replay";
const DEFAULT_START_AT = Date.UTC(2026, 0, 5, 9, 0, 0);
const MINUTE = 60_000;

/** Request file name of a call point: the index zero-padded to at least four digits. */
export function requestFileName(index: number): string {
  return `${String(index).padStart(4, "0")}.json`;
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
    const report: ReplayReport = {
      transcript: options.transcript.source,
      model: walk.profile.model,
      maxInputTokens: options.maxInputTokens,
      triggerTokens: limits.triggerTokens,
      limitTokens: limits.limitTokens,
      steps,
      totals: totalsOf(steps, limits.limitTokens),
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

/** The state of one replay as it walks the transcript. */
class ReplayWalk {
  readonly profile: ModelProfile;
  private readonly tools: ToolSpec[];
  /** Facts from the boundary of the compaction in force (what the runtime reads), in seq order. */
  private facts: StoredMessage[] = [];
  private compaction: CompactionEvent | null = null;
  private historyTokens = 0;
  private compactions = 0;
  /** What the last call sent, handed to the next projection (cache-stable mode, as the runtime). */
  private memo: ProjectionMemo | null = null;
  /** Per-fact stage results, reused from call to call (as the runtime's session keeps them). */
  private readonly reductions = new ReductionCache();
  /** The last request written, to measure how much of the next one a prefix cache could serve. */
  private previousRequest: SentRequest | null = null;
  /** What the agent knew so far, from the raw facts (the yardstick of retention). */
  private readonly known = new WorkingFactsTracker();

  constructor(
    private readonly store: Store,
    private readonly options: ReplayOptions,
    private readonly tokenizer: Tokenizer,
    private readonly summarize: Summarizer,
    private readonly historyFile: string,
    private readonly requestsDir: string,
  ) {
    // The profile a thread gets with {model, maxInputTokens}: every other knob at its default.
    this.profile = ModelProfile.parse({
      model: options.model ?? "sim",
      maxInputTokens: options.maxInputTokens,
    });
    this.tools = deriveToolSchemas(options.transcript.messages);
  }

  private clock(index: number): number {
    return (this.options.startAt ?? DEFAULT_START_AT) + index * MINUTE;
  }

  async run(): Promise<ReplayStep[]> {
    const { transcript } = this.options;
    const points = callPoints(transcript);
    const steps: ReplayStep[] = [];
    let next = transcript.firstFactIndex;
    for (const index of points) {
      await this.appendFacts(next, index);
      next = index;
      steps.push(await this.step(index));
      this.options.onProgress?.({
        done: steps.length,
        total: points.length,
        index,
        compactions: this.compactions,
        exhausted: steps.filter((step) => step.status === "context_exhausted").length,
      });
    }
    return steps;
  }

  /** Appends transcript[from, to) to the store, as the runtime appends facts as they happen. */
  private async appendFacts(from: number, to: number): Promise<void> {
    if (to <= from) return;
    const inputs = this.options.transcript.messages
      .slice(from, to)
      .map((message, offset) => ({ ...toMessageInput(message), id: messageId(from + offset) }));
    const stored = await this.store.messages.appendMany(AGENT_ID, inputs);
    this.known.add(ledgerSources(stored));
    stored.forEach((fact, offset) => {
      // The store stamps wall-clock time; the replay's clock is the transcript position, so the
      // projection (idle gaps, usage anchors) and every output are the same on every run.
      this.facts.push({ ...fact, createdAt: this.clock(from + offset) });
      this.historyTokens += fact.tokenCount;
    });
  }

  private input(now: number): ProjectionInput {
    return {
      systemPrompt: this.options.transcript.systemPrompt,
      messages: this.facts,
      compaction: this.compaction,
      state: null,
      profile: this.profile,
      now,
      tokenizer: this.tokenizer,
      tools: this.tools,
      memo: this.memo,
      reductions: this.reductions,
      ...(this.options.rewriteMinTokens === undefined
        ? {}
        : { rewriteMinTokens: this.options.rewriteMinTokens }),
    };
  }

  private async step(index: number): Promise<ReplayStep> {
    const now = this.clock(index);
    const before = project(this.input(now));
    let projection: Projection = before;
    const step: ReplayStep = {
      index,
      rawTokens: before.rawTokens,
      projectedTokens: before.tokens,
      saved: before.saved,
      status: "ok",
      historyTokens: this.historyTokens,
    };
    if (before.needsCompaction) {
      const compacted = await this.compact(before, now);
      if (compacted) {
        projection = compacted.projection;
        step.compaction = compacted.summary;
      }
    }
    step.projectedTokens = projection.tokens;
    step.saved = projection.saved;
    this.memo = projection.memo ?? null;
    if (projection.rewrite?.rewritten) step.rewrite = projection.rewrite.reason;
    const verdict = verifyProjection(projection);
    if (!verdict.ok) {
      // I6: an oversized request is never sent; the walk goes on with the next call point.
      step.status = "context_exhausted";
      step.reason = verdict.reason;
      step.verbatimTokens = verbatimPart(projection).tokens;
      return step;
    }
    if (this.compactions > 0) step.retention = retentionOf(projection.messages, this.known.facts());
    const sent: SentRequest = {
      messages: projection.messages,
      messageTokens: projection.messageTokens,
      toolsTokens: projection.toolsTokens,
    };
    if (this.previousRequest !== null && step.compaction === undefined) {
      step.cache = cacheShareOf(this.previousRequest, sent);
    }
    this.previousRequest = sent;
    const body = { model: this.profile.model, messages: projection.messages, tools: this.tools };
    await writeFile(join(this.requestsDir, requestFileName(index)), JSON.stringify(body));
    return step;
  }

  /** One partial LLM compaction, as the runtime's compaction runner does it (without a workspace). */
  private async compact(
    before: Projection,
    now: number,
  ): Promise<{ projection: Projection; summary: NonNullable<ReplayStep["compaction"]> } | null> {
    const input = this.input(now);
    const plan = planCompaction(input, {
      strategy: "partial",
      timeZone: this.options.timeZone ?? "UTC",
    });
    if (!plan) return null;
    const summaryText = await this.summarize(plan.request);
    // Offload the compacted source (sanitized, I5), as the runtime does into the workspace.
    const offloaded = sanitizeMessages(toChatMessages(plan.toSummarize)).map(
      (message: ChatMessage, offset) => ({
        ...message,
        id: plan.toSummarize[offset]?.id,
        seq: plan.toSummarize[offset]?.seq,
      }),
    );
    await appendFile(this.historyFile, offloaded.map((line) => `${JSON.stringify(line)}\n`).join(""));
    this.compactions += 1;
    const fixed = compactionFields(plan, summaryText);
    const retained = this.facts.filter((fact) => fact.seq >= plan.cutoffIndex);
    const draft = (fields: FittedFields): CompactionEvent => ({
      id: `compaction-${String(this.compactions).padStart(4, "0")}`,
      agentId: AGENT_ID,
      ...fixed,
      summaryMessage: fields.summaryMessage,
      ledger: fields.ledger,
      shrunk: fields.shrunk,
      historyFile: this.historyFile,
      trigger: "auto",
      tokensBefore: before.tokens,
      tokensAfter: 0,
      restored: fields.restored,
      createdAt: now,
    });
    // As the runtime's compaction runner does it, without a workspace: nothing to restore.
    const fit = fitCompaction({
      plan,
      summaryText,
      ledger: updateLedger({ previous: this.compaction?.ledger ?? null, messages: plan.ledgerSources }),
      files: [],
      restorationCap: DEFAULT_RESTORATION_BUDGETS,
      historyFile: this.historyFile,
      profile: this.profile,
      tokenizer: this.tokenizer,
      measure: (fields) => project({ ...input, messages: retained, compaction: draft(fields) }),
    });
    const event = await this.store.compactions.insert({
      ...draft(fit.fields),
      tokensAfter: fit.projection.tokens,
    });
    this.compaction = event;
    this.facts = retained;
    // The request after a compaction is the cache-stable projection of the new epoch (as the runtime sends it).
    return {
      projection: project({ ...this.input(now), memo: null }),
      summary: {
        strategy: event.strategy,
        trigger: event.trigger,
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        cutoffMessageId: event.cutoffMessageId,
        ledgerTokens: fit.ledgerTokens,
        ...(fit.fields.shrunk.length > 0
          ? { shrunk: fit.fields.shrunk.map((shrink) => `${shrink.what}: ${shrink.detail}`) }
          : {}),
      },
    };
  }
}

/** Fact id of the transcript message at `index`, so a report's cutoff points back into the transcript. */
export function messageId(index: number): string {
  return `msg-${String(index).padStart(4, "0")}`;
}
