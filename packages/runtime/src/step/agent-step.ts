import {
  callCost,
  hasProviderState,
  type Projection,
  preparedOnBase,
  ReductionCache,
  type RequestParts,
  requestPartsOf,
  sanitizeMessages,
  sharedPrefixParts,
  shouldPrepareSummary,
  verifyProjection,
} from "@longrun/compaction";
import { contentText, type NewEvent } from "@longrun/protocol";
import type { StepJob } from "@longrun/queue";
import { runCompaction } from "../compaction/run-compaction.ts";
import { loadAgentContext } from "../context/agent-context.ts";
import { type AgentSession, openSession, recordFact } from "../context/agent-session.ts";
import { measuredFigures, projectContext } from "../context/projection.ts";
import { appendFactIn, withTokenCount } from "../events/append-fact.ts";
import { commit } from "../events/commit.ts";
import type { Coordinator } from "../runs/coordinator.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { timedModelCall } from "../runtime-metrics.ts";
import { withoutRefusedReasoning } from "../upstream/stale-reasoning.ts";
import { toolsFor } from "./agent-tools.ts";
import { callModel } from "./model-call.ts";
import { finalAnswer, pendingToolCalls } from "./pending-calls.ts";
import { isContextOverflow, isInvalidEncryptedContent, withProviderRetry } from "./provider-retry.ts";
import { runsDirectly, runToolPhase, type StartedCalls, startCallIn } from "./tool-phase.ts";

/** What the worker should do after a step. */
export type StepOutcome =
  | { kind: "continue" }
  | { kind: "compact"; trigger: "auto" | "overflow" }
  | { kind: "completed"; report: string }
  | { kind: "parked"; reason: "approval" | "children" }
  | { kind: "wait"; until: number; reason: string }
  | { kind: "exhausted"; reason: string }
  | { kind: "failed"; reason: string }
  | { kind: "cancelled" };

/**
 * One step of one agent: finish the tool calls left from an earlier step, measure, ask for a
 * compaction when needed, call the model once, record its answer, run its tool calls.
 * Idempotent under retry: every decision is read back from the log.
 */
export async function runAgentStep(
  deps: RuntimeDeps,
  coordinator: Coordinator,
  job: StepJob & { fence: number; signal: AbortSignal; session: AgentSession },
): Promise<StepOutcome> {
  const where = { threadId: job.threadId, agentId: job.agentId, runId: job.runId, fence: job.fence };
  const { session } = job;
  const pending = pendingToolCalls(session.context.facts);
  if (pending) {
    const phase = await runToolPhase(
      deps,
      coordinator,
      session,
      where,
      pending.message,
      pending.calls,
      job.signal,
    );
    if (job.signal.aborted) return { kind: "cancelled" };
    if (phase !== "done") return parkedOutcome(phase);
    // The coordinator wrote facts of its own: read the log again rather than guess.
    if (session.stale) {
      session.context = await loadAgentContext(deps, job.agentId);
      session.lastSeq = session.context.facts.at(-1)?.seq ?? session.lastSeq;
      session.stale = false;
    }
  }
  const context = session.context;
  const answer = finalAnswer(context.facts);
  if (answer !== null) return { kind: "completed", report: answer };

  session.reductions ??= new ReductionCache();
  const projection = projectContext(deps, context, session.memo, session.reductions);
  const measured: NewEvent = {
    ...eventWhere(job),
    type: "context.measured",
    data: {
      // The log's position, not the newest retained fact's: a compaction can leave no fact after its
      // boundary, and the step is still the agent's real one (session.lastSeq follows the log).
      step: session.lastSeq,
      maxInputTokens: context.profile.maxInputTokens ?? null,
      needsCompaction: projection.needsCompaction,
      ...measuredFigures(projection),
    },
  };
  // Persisted with the answer it led to; on its own when no model call follows.
  let measuredSent = false;
  const sendMeasured = async () => {
    if (measuredSent) return;
    measuredSent = true;
    await deps.events.emit(measured);
  };
  if (projection.needsCompaction && !job.compactionDeferred) {
    // peek, not check: the compaction runner takes the half-open trial, the step must not use it up.
    const gate = await deps.breaker.peek(job.agentId);
    if (gate.allowed) {
      const prepared = await backgroundSummaryOf(deps, session);
      if (prepared === "ready") {
        await sendMeasured();
        return applyPreparedInStep(deps, coordinator, job);
      }
      if (prepared !== "making" || !verifyProjection(projection).ok) {
        await sendMeasured();
        return { kind: "compact", trigger: "auto" };
      }
      // The summary this compaction would apply is being made in the background and the request still
      // fits: send it as it is, and compact at a later step, when the summary is ready — or once the
      // request would not fit (the compaction then waits for it).
      measured.data = { ...measured.data, compactionDeferred: "summary-in-progress" };
    } else {
      const verdict = verifyProjection(projection);
      if (!verdict.ok) {
        // Over the hard limit and the breaker forbids a summary: never send; wait for the cooldown.
        await sendMeasured();
        await deps.events.emit({
          ...eventWhere(job),
          type: "compaction.failed",
          data: {
            compactionKey: `${job.agentId}:breaker`,
            trigger: "auto",
            reason: `circuit breaker ${gate.state}: compaction skipped; retry after cooldown`,
            breaker: gate.state,
            contextExhausted: false,
          },
        });
        return { kind: "wait", until: gate.retryAt ?? deps.now() + 30_000, reason: "breaker open" };
      }
    }
  }
  const verdict = verifyProjection(projection);
  if (!verdict.ok) {
    await sendMeasured();
    return { kind: "exhausted", reason: verdict.reason };
  }

  if (shouldAskForPreparedSummary(session, projection)) {
    // Past the early line: the older prefix is summarized off this path, for the compaction at the trigger.
    session.preparedAsk = { on: context.compaction?.id ?? null, tokens: projection.tokens };
    await deps.scheduler.prepareSummary(eventWhere(job));
  }

  const tools = toolsFor(deps, context.agent);
  let sent = projection.messages;
  const send = (messages: typeof projection.messages) => {
    sent = messages;
    return withProviderRetry(
      () =>
        timedModelCall(deps.metrics, "step", () =>
          callModel(deps.model, {
            model: context.profile.model,
            messages,
            tools,
            maxOutputTokens: context.profile.maxOutputTokens,
            headers: deps.modelHeaders?.(job.agentId),
            signal: job.signal,
            timeouts: {
              firstByteMs: context.profile.modelFirstByteTimeoutMs,
              totalMs: context.profile.modelTimeoutMs,
            },
            onDelta: (text) =>
              deps.events.transient({ ...eventWhere(job), type: "message.delta", data: { text } }),
            api: context.profile.upstreamApi,
            anthropic: deps.anthropic,
            thinkingBudgetTokens: context.profile.thinkingBudgetTokens,
            cacheKey: job.agentId,
          }),
        ),
      { ...deps.retry, signal: job.signal },
    );
  };
  let assistant: Awaited<ReturnType<typeof callModel>>;
  try {
    const replayed = withoutRefusedReasoning(projection, context.facts, session.reasoningRefusedThrough);
    try {
      assistant = await send(replayed);
    } catch (error) {
      // The provider refused replayed reasoning state: it belongs to a chain this request left.
      // Send once more without any provider-private state rather than failing the agent.
      if (!isInvalidEncryptedContent(error) || !replayed.some(hasProviderState)) throw error;
      session.reasoningRefusedThrough = context.facts.at(-1)?.seq;
      await deps.events.emit({
        ...eventWhere(job),
        type: "reasoning.dropped",
        data: {
          reason: error instanceof Error ? error.message : String(error),
          messages: replayed.filter(hasProviderState).length,
        },
      });
      assistant = await send(sanitizeMessages(replayed));
    }
  } catch (error) {
    await sendMeasured();
    if (job.signal.aborted) return { kind: "cancelled" };
    if (isContextOverflow(error)) {
      // The same oversized request is never sent twice: compact once (bypassing the breaker), then
      // a second overflow ends the agent.
      if (job.afterOverflow) {
        return { kind: "exhausted", reason: "provider rejected the request as too long after compaction" };
      }
      return { kind: "compact", trigger: "overflow" };
    }
    throw error;
  }
  // What the call cost: the provider's cached tokens when it reports them, else the prefix this request
  // shares with the agent's previous one (unknown after a restart: counted as written). The request is
  // serialized for that only when the provider does not report them.
  let sentParts: RequestParts | null = null;
  const cost = callCost(assistant.usage, () => {
    const parts = requestPartsOf(sent, projection.messageTokens, tools, projection.toolsTokens);
    sentParts = parts;
    return {
      partTokens: parts.partTokens,
      sharedParts: sharedPrefixParts(session.lastRequestParts ?? null, parts.parts),
    };
  });
  measured.data = { ...measured.data, cost };
  session.lastRequestParts = (sentParts as RequestParts | null)?.parts ?? null;
  // The answer, the measurement of the request that produced it, and the start of its first call
  // commit together; the call then runs at once.
  const started: StartedCalls = new Map();
  // Its reasoning is bound to the chain of the compaction in force (replayed only while it is).
  if (assistant.providerState) {
    assistant = {
      ...assistant,
      providerState: { ...assistant.providerState, issuedOnCompactionId: context.compaction?.id ?? null },
    };
  }
  // Counted before the transaction, a long answer off the event loop (see withTokenCount).
  const counted = await withTokenCount(deps, assistant);
  const stored = await commit(deps, async (unit, announce) => {
    if (!measuredSent) announce(measured);
    const fact = await appendFactIn(unit, announce, where, counted);
    const first = fact.toolCalls?.[0];
    if (first && runsDirectly(deps, first))
      started.set(first.id, await startCallIn(unit, announce, where, first));
    return fact;
  });
  recordFact(session, stored);
  // The request was sent: the next call keeps its forms (a call point is a model answer in the log).
  session.memo = projection.memo ?? null;
  if (!stored.toolCalls || stored.toolCalls.length === 0) {
    return { kind: "completed", report: contentText(stored.content) };
  }
  const phase = await runToolPhase(
    deps,
    coordinator,
    session,
    where,
    stored,
    stored.toolCalls,
    job.signal,
    started,
  );
  if (job.signal.aborted) return { kind: "cancelled" };
  return phase === "done" ? { kind: "continue" } : parkedOutcome(phase);
}

/** Share of the trigger the request must grow by before the same compaction's summary is asked for again. */
const PREPARE_ASK_GROWTH = 0.05;

/**
 * Past the early line and not asked on this compaction yet, or asked but the request has grown since (the
 * job skips when a summary is prepared or being made, and when a compaction then would make no progress).
 */
function shouldAskForPreparedSummary(session: AgentSession, projection: Projection): boolean {
  const { context } = session;
  if (!shouldPrepareSummary(projection, context.profile, context.compaction)) return false;
  const ask = session.preparedAsk;
  if (ask === undefined || ask.on !== (context.compaction?.id ?? null)) return true;
  return projection.tokens >= ask.tokens + projection.triggerTokens * PREPARE_ASK_GROWTH;
}

/**
 * The agent's background summary on the compaction in force: ready to apply, being made (within its
 * call's time), or none.
 */
async function backgroundSummaryOf(
  deps: RuntimeDeps,
  session: AgentSession,
): Promise<"ready" | "making" | null> {
  const { context } = session;
  const prepared = await deps.store.preparedSummaries.get(context.agent.id);
  if (prepared === null || !preparedOnBase(prepared, context.compaction)) return null;
  if (prepared.summaryText !== null) return "ready";
  return prepared.preparedAt + context.profile.modelTimeoutMs > deps.now() ? "making" : null;
}

/**
 * The compaction due applies a summary already made in the background: no model call, so it runs here,
 * under the step's lease, and the step then goes on with the compacted context — rather than a round
 * trip through the compaction queue and back (the summary was taken off this path to save that wait).
 * Its events and record are a queued compaction's; any other outcome is handled as the compaction job
 * would (compact-job.ts).
 */
async function applyPreparedInStep(
  deps: RuntimeDeps,
  coordinator: Coordinator,
  job: StepJob & { fence: number; signal: AbortSignal; session: AgentSession },
): Promise<StepOutcome> {
  const { session } = job;
  const startedAt = performance.now();
  const outcome = await runCompaction(deps, {
    ...eventWhere(job),
    trigger: "auto",
    fence: job.fence,
    signal: job.signal,
    // One key per log position: a redelivered step that finds the compaction unfinished reuses it.
    compactionKey: `step:${job.agentId}:${session.lastSeq}`,
  });
  deps.metrics?.compaction((performance.now() - startedAt) / 1000, outcome.kind);
  if (job.signal.aborted) return { kind: "cancelled" };
  switch (outcome.kind) {
    case "compacted":
    case "nothing": {
      // Read the log again (the compaction in force changed), then the step itself, with no compaction.
      const probe = await deps.store.agents.probe(job.agentId, job.runId);
      if (probe === null) throw new Error(`agent ${job.agentId} vanished during its compaction`);
      const reopened = await openSession(deps, job.agentId, probe);
      Object.assign(session, reopened, { fence: job.fence, memo: undefined });
      return runAgentStep(deps, coordinator, { ...job, compactionDeferred: true });
    }
    case "exhausted":
      return { kind: "exhausted", reason: outcome.reason };
    case "failed":
    case "blocked":
      // As after a queued one: the next step goes now, with the deterministic projection under the limit.
      return { kind: "continue" };
    default: {
      const exhaustive: never = outcome;
      throw new Error(`unknown compaction outcome ${JSON.stringify(exhaustive)}`);
    }
  }
}

function parkedOutcome(phase: "parked_approval" | "parked_children"): StepOutcome {
  return { kind: "parked", reason: phase === "parked_approval" ? "approval" : "children" };
}

function eventWhere(job: StepJob) {
  return { threadId: job.threadId, agentId: job.agentId, runId: job.runId };
}
