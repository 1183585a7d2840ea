import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  compactionFields,
  DEFAULT_OUTPUT_RATIO,
  DEFAULT_RESTORATION_BUDGETS,
  type FittedFields,
  fitCompaction,
  type LedgerSource,
  ledgerSources,
  type PreparedSummary,
  type Projection,
  type ProjectionInput,
  type ProjectionMemo,
  planCompaction,
  preparedOnBase,
  project,
  ReductionCache,
  sanitizeMessages,
  shouldPrepareSummary,
  type Tokenizer,
  type ToolSpec,
  toChatMessages,
  unshownOutcomes,
  updateLedger,
  verbatimPart,
  verifyProjection,
} from "@longrun/compaction";
import {
  type ChatMessage,
  type CompactionEvent,
  ModelProfile,
  type StoredMessage,
  type Usage,
} from "@longrun/protocol";
import type { Store } from "@longrun/store";
import { cacheShareOf, type SentRequest } from "./cache-share.ts";
import { DEFAULT_FORWARD_N } from "./forward-use.ts";
import type { ReplayOptions } from "./replay.ts";
import { ReplayMeter } from "./replay-meter.ts";
import type { ReplayStep } from "./report.ts";
import { retentionOf, WorkingFactsTracker } from "./retention.ts";
import type { Summarizer } from "./sim-summarizer.ts";
import { deriveToolSchemas } from "./tool-schemas.ts";
import { callPoints } from "./transcript.ts";
import { toMessageInput } from "./transcript-facts.ts";

const AGENT_ID = "replay";
const DEFAULT_START_AT = Date.UTC(2026, 0, 5, 9, 0, 0);
const MINUTE = 60_000;

/** The state of one replay as it walks the transcript. */
export class ReplayWalk {
  readonly profile: ModelProfile;
  readonly tools: ToolSpec[];
  /** Prices every call sent and measures forward-use recall. */
  readonly meter: ReplayMeter;
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
  /** Every fact appended, as the ledger reads them: what each compaction's ledger is checked against. */
  private readonly sources: LedgerSource[] = [];
  /** A summary made in the background (ready from the next call point on), as the runtime's prepare job. */
  private prepared: PreparedSummary | null = null;
  /**
   * The usage a provider reports for the request just sent, for the answer it produced (appended at the
   * next call point): the runtime anchors its pressure on the latest one, so the replay gives each
   * answer the same.
   */
  private answerUsage: { index: number; usage: Usage } | null = null;

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
      ...(options.backgroundRatio === undefined ? {} : { backgroundRatio: options.backgroundRatio }),
    });
    this.tools = deriveToolSchemas(options.transcript.messages);
    this.meter = new ReplayMeter({
      transcript: options.transcript,
      tools: this.tools,
      tokenizer,
      outputRatio: options.outputRatio ?? DEFAULT_OUTPUT_RATIO,
      forwardN: options.forwardN ?? DEFAULT_FORWARD_N,
    });
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
    const answered = this.answerUsage;
    this.answerUsage = null;
    const inputs = this.options.transcript.messages.slice(from, to).map((message, offset) => ({
      ...toMessageInput(message, this.options.unrecordedStatus !== true),
      id: messageId(from + offset),
      ...(answered?.index === from + offset ? { usage: answered.usage } : {}),
    }));
    const stored = await this.store.messages.appendMany(AGENT_ID, inputs);
    const sources = ledgerSources(stored);
    this.known.add(sources);
    this.sources.push(...sources);
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
    const input = this.input(now);
    const before = project(input);
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
      this.meter.stepDone(step, null, false);
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
    this.meter.stepDone(step, projection.messages, this.compactions > 0);
    this.recordUsage(step);
    const body = { model: this.profile.model, messages: projection.messages, tools: this.tools };
    await writeFile(join(this.requestsDir, requestFileName(index)), JSON.stringify(body));
    if (step.compaction === undefined) await this.prepareInBackground(input, projection, step);
    return step;
  }

  /**
   * What a provider would report for the request just sent, counted by the replay's tokenizer (the one
   * that prices it): its prompt and the answer's output, attached to the answer when it is appended.
   */
  private recordUsage(step: ReplayStep): void {
    const main = step.cost?.main;
    if (main === undefined) return;
    const promptTokens = main.cacheRead + main.rest;
    this.answerUsage = {
      index: step.index,
      usage: { promptTokens, completionTokens: main.output, totalTokens: promptTokens + main.output },
    };
  }

  /**
   * The runtime's background prefix compaction: past the line, the summary is asked for beside the
   * step's own request (priced after it, as a continuation of it) and is ready from the next call point.
   */
  private async prepareInBackground(input: ProjectionInput, projection: Projection, step: ReplayStep) {
    if (this.prepared !== null && preparedOnBase(this.prepared, this.compaction)) return;
    if (!shouldPrepareSummary(projection, this.profile, this.compaction)) return;
    const plan = planCompaction(input, {
      strategy: "partial",
      timeZone: this.options.timeZone ?? "UTC",
      projection,
      noProgress: "plan",
    });
    if (!plan || plan.progress.noProgress || plan.cutoffMessageId === null) return;
    const summaryText = await this.summarize(plan.request);
    this.meter.backgroundSummarySent(step, plan.request, summaryText);
    step.prepared = { cutoffMessageId: plan.cutoffMessageId };
    this.prepared = {
      baseCompactionId: this.compaction?.id ?? null,
      cutoffMessageId: plan.cutoffMessageId,
      summaryText,
    };
  }

  /** One partial LLM compaction, as the runtime's compaction runner does it (without a workspace). */
  private async compact(
    before: Projection,
    now: number,
  ): Promise<{ projection: Projection; summary: NonNullable<ReplayStep["compaction"]> } | null> {
    const input = this.input(now);
    const options = {
      strategy: "partial" as const,
      timeZone: this.options.timeZone ?? "UTC",
      // The same input as `before`'s: its projection, not a second one.
      projection: before,
    };
    // A summary prepared in the background on this compaction, at a cut that still is one: no call.
    const prepared =
      this.prepared !== null && preparedOnBase(this.prepared, this.compaction) ? this.prepared : null;
    this.prepared = null;
    const fromPrepared =
      prepared && planCompaction(input, { ...options, preparedCutoff: prepared.cutoffMessageId });
    const plan =
      fromPrepared && !fromPrepared.progress.noProgress ? fromPrepared : planCompaction(input, options);
    if (!plan) return null;
    const applied = prepared !== null && plan === fromPrepared;
    const retained = this.facts.filter((fact) => fact.seq >= plan.cutoffIndex);
    const ledger = updateLedger({ previous: this.compaction?.ledger ?? null, messages: plan.ledgerSources });
    const id = `compaction-${String(this.compactions + 1).padStart(4, "0")}`;
    const fitOf = (summaryText: string, fixed: ReturnType<typeof compactionFields>) => {
      const draft = (fields: FittedFields): CompactionEvent => ({
        id,
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
        ledger,
        files: [],
        restorationCap: DEFAULT_RESTORATION_BUDGETS,
        historyFile: this.historyFile,
        profile: this.profile,
        tokenizer: this.tokenizer,
        measure: (fields) => project({ ...input, messages: retained, compaction: draft(fields) }),
      });
      return { fit, event: draft(fit.fields) };
    };
    // What the cut must keep is over the limit with no summary at all: no summary can help, none is
    // asked for, and nothing is recorded (the compaction in force keeps its summary), as the runtime does.
    if (!fitOf("", compactionFields(plan, "")).fit.verdict.ok) return null;
    const summaryText = applied ? prepared.summaryText : await this.summarize(plan.request);
    if (!applied) this.meter.summarySent(plan.request, summaryText);
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
    const { fit, event: drafted } = fitOf(summaryText, compactionFields(plan, summaryText));
    const event = await this.store.compactions.insert({ ...drafted, tokensAfter: fit.projection.tokens });
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
        unshownOutcomes: event.ledger ? unshownOutcomes(event.ledger, this.sources) : 0,
        ...(applied ? { prepared: true } : {}),
        ...(fit.fields.shrunk.length > 0
          ? { shrunk: fit.fields.shrunk.map((shrink) => `${shrink.what}: ${shrink.detail}`) }
          : {}),
      },
    };
  }
}

/** Request file name of a call point: the index zero-padded to at least four digits. */
export function requestFileName(index: number): string {
  return `${String(index).padStart(4, "0")}.json`;
}

/** Fact id of the transcript message at `index`, so a report's cutoff points back into the transcript. */
function messageId(index: number): string {
  return `msg-${String(index).padStart(4, "0")}`;
}
