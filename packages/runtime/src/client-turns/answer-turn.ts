import {
  hasProviderState,
  type Projection,
  sanitizeMessages,
  toChatMessages,
  verifyProjection,
} from "@longrun/compaction";
import type { Answer, ClientTurn } from "@longrun/openai-compat";
import { type ChatMessage, errorFields, type ModelProfile, type StoredMessage } from "@longrun/protocol";
import { loadAgentContext } from "../context/agent-context.ts";
import { measuredFigures } from "../context/projection.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { ModelTimeoutError } from "../step/model-deadline.ts";
import { isContextOverflow, isInvalidEncryptedContent } from "../step/provider-retry.ts";
import { type ClearedReasoning, clearOlderReasoning } from "./clear-reasoning.ts";
import { ClientTurnError } from "./client-turn-error.ts";
import type { ClientTurnOptions } from "./client-turn-options.ts";
import { gatewayCompactionStrategy } from "./compaction-strategy.ts";
import type { GatewayConversation } from "./conversation-thread.ts";
import { exhaustedReason } from "./exhausted-reason.ts";
import { compactThroughQueue } from "./queued-compaction.ts";
import { rememberRefusal, type SourcedMessages, withoutRefused } from "./refused-reasoning.ts";
import {
  type ClientTurnInput,
  type ClientTurnResult,
  factsOf,
  leaseOptions,
  type TurnSettings,
  type TurnSink,
} from "./turn-context.ts";
import { holdTurnLease, type TurnLease } from "./turn-lease.ts";
import { projectTurn } from "./turn-projection.ts";
import { beginTurn, endTurn, type TurnTarget } from "./turn-records.ts";
import { streamUpstream } from "./upstream-call.ts";

/** Keeps the stored profile in step with what the client asks for now (window, output, model, setting). */
async function syncProfile(
  deps: RuntimeDeps,
  conversation: GatewayConversation,
  settings: TurnSettings,
): Promise<ModelProfile> {
  const stored = conversation.thread.modelProfile;
  const next: ModelProfile = {
    ...stored,
    model: settings.profile.model,
    maxInputTokens: settings.profile.maxInputTokens,
    maxOutputTokens: settings.profile.maxOutputTokens,
    summarizerModel: settings.profile.summarizerModel,
    // The configured format: a conversation follows it (another format's state is foreign and left out).
    upstreamApi: settings.profile.upstreamApi,
    ...(stored.gateway
      ? {
          gateway: {
            ...stored.gateway,
            ...(settings.compaction ? { compaction: settings.compaction } : {}),
            // A declared client window wins; without one, the window learned from its compactions stays.
            ...(settings.clientWindow ? { clientWindow: settings.clientWindow } : {}),
          },
        }
      : {}),
  };
  if (JSON.stringify(next) === JSON.stringify(stored)) return stored;
  await deps.store.threads.update(conversation.thread.id, { modelProfile: next });
  return next;
}

/**
 * The part of a turn after the history is synced, under the agent's lease: measure, compact through
 * the queue when needed, verify, call the upstream and record the answer (or why there is none).
 */
export async function answerTurn(
  deps: RuntimeDeps,
  options: ClientTurnOptions,
  input: ClientTurnInput,
  state: {
    conversation: GatewayConversation;
    lease: TurnLease;
    append: ClientTurn["items"];
    settings: TurnSettings;
  },
  sink: TurnSink,
): Promise<ClientTurnResult> {
  const { conversation, settings } = state;
  const threadId = conversation.thread.id;
  const agentId = conversation.agentId;
  let lease = state.lease;
  let profile = await syncProfile(deps, conversation, settings);
  const compactionOn = (profile.gateway?.compaction ?? "on") === "on";
  const { runId } = await beginTurn(deps, { threadId, agentId, fence: lease.fence }, state.append);
  deps.metrics?.runAdmitted("gateway", conversation.thread.tenantId);
  const target = (): TurnTarget => ({ threadId, agentId, runId, fence: lease.fence });
  let begun = false;
  try {
    let projectedFacts: readonly StoredMessage[] = [];
    const measure = async (): Promise<Projection> => {
      const context = await loadAgentContext(deps, agentId);
      projectedFacts = context.facts;
      return await projectTurn(deps, context, input.turn, profile);
    };
    /** Releases the lease while the queued compaction job (which takes it) runs, then takes it again. */
    const compact = async (trigger: "auto" | "overflow") => {
      await lease.release();
      const outcome = await compactThroughQueue(deps, options, {
        threadId,
        agentId,
        trigger,
        strategy: gatewayCompactionStrategy(projection, profile),
        signal: input.signal,
      });
      lease = await holdTurnLease(deps, agentId, leaseOptions(options, input.signal));
      if (outcome.kind === "timed_out") {
        throw new ClientTurnError(
          503,
          "compaction_unavailable",
          "the compaction job did not finish: is a worker running?",
          {
            retryAfterMs: 30_000,
          },
        );
      }
    };
    let projection = await measure();
    await deps.events.emit({
      threadId,
      agentId,
      runId,
      type: "context.measured",
      data: {
        step: (await deps.store.messages.last(agentId))?.seq ?? 0,
        maxInputTokens: profile.maxInputTokens ?? null,
        needsCompaction: projection.needsCompaction && compactionOn,
        ...measuredFigures(projection),
      },
    });
    if (compactionOn && projection.needsCompaction) {
      const gate = await deps.breaker.peek(agentId);
      if (gate.allowed) {
        // Over the window by the turn's own measure (which counts the client's tools; the job sees
        // none of them): the job must not skip it as "no progress, the projection fits".
        await compact(verifyProjection(projection).ok ? "auto" : "overflow");
        projection = await measure();
      } else if (!verifyProjection(projection).ok) {
        const retryAfterMs = Math.max(1_000, (gate.retryAt ?? deps.now() + 30_000) - deps.now());
        throw new ClientTurnError(
          503,
          "compaction_unavailable",
          `compaction is paused (circuit breaker ${gate.state})`,
          {
            retryAfterMs,
          },
        );
      }
    }
    const messagesFor = async (): Promise<SourcedMessages> => {
      if (compactionOn) {
        const verdict = verifyProjection(projection);
        if (!verdict.ok) throw new ClientTurnError(400, "context_exhausted", exhaustedReason(projection));
        return { messages: projection.messages, sourceIds: projection.sourceIds, facts: projectedFacts };
      }
      // Compaction off: the client's own history as it is (the client keeps its own window).
      const facts = await factsOf(deps, agentId);
      const system = input.turn.system ? [{ role: "system" as const, content: input.turn.system }] : [];
      return {
        messages: [...system, ...toChatMessages(facts)],
        sourceIds: [...system.map(() => null), ...facts.map((fact) => fact.id)],
        facts,
      };
    };
    const send = (messages: ChatMessage[]) =>
      streamUpstream(
        deps,
        {
          api: profile.upstreamApi ?? "chat-completions",
          turn: input.turn,
          messages,
          cacheKey: agentId,
          ...(options.thinkingBudgetTokens ? { thinkingBudgetTokens: options.thinkingBudgetTokens } : {}),
        },
        {
          signal: AbortSignal.any([input.signal, lease.lost]),
          headers: deps.modelHeaders?.(agentId),
          timeouts: { firstByteMs: profile.modelFirstByteTimeoutMs, totalMs: profile.modelTimeoutMs },
          onOpen: () => {
            begun = true;
            sink.begin({ threadId, replayed: false });
          },
          onEvent: (event) => {
            sink.event(event);
            if (event.type === "text") {
              deps.events.transient({
                threadId,
                agentId,
                runId,
                type: "message.delta",
                data: { text: event.delta },
              });
            }
          },
        },
      );
    let answer: Answer;
    let overflowRetried = false;
    let sent: ChatMessage[] = [];
    let clearedReasoning: ClearedReasoning | undefined;
    for (;;) {
      const sourced = await messagesFor();
      let messages = withoutRefused(sourced, profile);
      const keep = input.turn.keepReasoningTurns;
      if (keep !== undefined) {
        const cleared = clearOlderReasoning(messages, keep, deps.tokenizer);
        messages = cleared.messages;
        clearedReasoning = cleared.cleared;
      }
      try {
        try {
          sent = messages;
          answer = await send(messages);
        } catch (error) {
          // Replayed reasoning state refused: it belongs to a chain this request left. Once more without
          // it, and never again with it.
          if (begun || !isInvalidEncryptedContent(error) || !messages.some(hasProviderState)) throw error;
          profile = await rememberRefusal(deps, { threadId, agentId, runId }, profile, {
            facts: sourced.facts,
            error,
            messages: messages.filter(hasProviderState).length,
          });
          sent = sanitizeMessages(messages);
          answer = await send(sent);
        }
        break;
      } catch (error) {
        // The estimate said it fits but the provider disagrees: compact once (bypassing the breaker),
        // then a second overflow means the conversation cannot continue.
        if (!begun && isContextOverflow(error) && compactionOn && !overflowRetried) {
          overflowRetried = true;
          await compact("overflow");
          projection = await measure();
          continue;
        }
        if (!begun && isContextOverflow(error)) {
          throw new ClientTurnError(
            400,
            "context_exhausted",
            "the upstream model refused the request as over its window, after a compaction",
          );
        }
        throw error;
      }
    }
    await endTurn(deps, target(), { kind: "answered", answer: answer.message });
    const promptCache = options.promptCache?.record(
      agentId,
      { messages: sent, tools: input.turn.tools },
      deps.tokenizer,
      answer.usage?.promptTokens ?? 0,
    );
    return {
      threadId,
      agentId,
      answer,
      replayed: false,
      ...(promptCache ? { promptCache } : {}),
      ...(clearedReasoning ? { clearedReasoning } : {}),
    };
  } catch (error) {
    const failure = describeFailure(error, input.signal);
    await endTurn(deps, target(), {
      kind: "failed",
      code: failure.code,
      message: failure.message,
      threadStatus: failure.code === "context_exhausted" ? "context_exhausted" : "idle",
    }).catch((recordError: unknown) =>
      // The client is told the turn's own failure (thrown below); the reconciler finds the run unended.
      deps.log.error(
        { threadId, agentId, ...errorFields(recordError), turnError: failure.code },
        "client turn failed and its end could not be recorded",
      ),
    );
    throw failure.error;
  } finally {
    await lease.release();
  }
}

/** A turn's failure as the run records it and as the client is told. */
function describeFailure(
  error: unknown,
  signal: AbortSignal,
): { code: string; message: string; error: unknown } {
  if (ClientTurnError.isInstance(error)) return { code: error.code, message: error.message, error };
  if (signal.aborted) return { code: "cancelled", message: "the client went away", error };
  if (ModelTimeoutError.isInstance(error)) {
    const message = `upstream ${error.message}`;
    return { code: "upstream_error", message, error: new ClientTurnError(502, "upstream_error", message) };
  }
  const status = (error as { status?: unknown })?.status;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && /APIConnection/.test(error.constructor.name)) {
    return {
      code: "upstream_error",
      message,
      error: new ClientTurnError(502, "upstream_error", `upstream model unreachable: ${message}`),
    };
  }
  if (typeof status === "number") {
    const upstream = (error as { code?: unknown; type?: unknown }) ?? {};
    return {
      code: "upstream_error",
      message,
      error: new ClientTurnError(status, "upstream_error", message, {
        upstreamCode: typeof upstream.code === "string" ? upstream.code : null,
        ...(typeof upstream.type === "string" ? { upstreamType: upstream.type } : {}),
      }),
    };
  }
  return { code: "upstream_error", message, error };
}
