import {
  hasProviderState,
  type Projection,
  sanitizeMessages,
  toChatMessages,
  verifyProjection,
} from "@longrun/compaction";
import {
  type Answer,
  type AnswerEvent,
  agentConversationKey,
  branchKey,
  type ClientTurn,
  conversationKey,
  derivedThreadId,
  detectClientCompaction,
  fingerprint,
  type HeaderReader,
  replayAnswer,
  textOf,
  upstreamRequest,
} from "@longrun/openai-compat";
import type { ChatMessage, GatewayProfile, ModelProfile, StoredMessage } from "@longrun/protocol";
import { loadAgentContext } from "../engine/agent-context.ts";
import type { RuntimeDeps } from "../engine/runtime-deps.ts";
import { resolveProfile } from "../profiles.ts";
import { isContextOverflow, isInvalidEncryptedContent } from "../retry.ts";
import { answerClientCompaction } from "./client-compaction-turn.ts";
import { compactThroughQueue } from "./gateway-compaction.ts";
import { GatewayError } from "./gateway-error.ts";
import { holdAgentLease, type TurnLease } from "./gateway-lease.ts";
import { COMPACTION_HEADER, type GatewayOptions, MAX_INPUT_TOKENS_HEADER } from "./gateway-options.ts";
import { projectTurn } from "./gateway-projection.ts";
import { type GatewayConversation, resolveConversation } from "./gateway-thread.ts";
import { matchResentHistory } from "./resent-history.ts";
import { beginTurn, endTurn, type TurnTarget } from "./turn-records.ts";
import { streamUpstream } from "./upstream-call.ts";

/** Where a turn's answer goes as it streams. */
export interface TurnSink {
  /** The answer starts (the upstream accepted the request, or a stored answer is told again). */
  begin(info: { threadId: string; replayed: boolean }): void;
  event(event: AnswerEvent): void;
}

export interface GatewayTurnInput {
  tenantId: string;
  turn: ClientTurn;
  header: HeaderReader;
  signal: AbortSignal;
  /** "codex", "opencode"…: shown with the thread. */
  client?: string;
}

export interface GatewayTurnResult {
  threadId: string;
  agentId: string;
  answer: Answer;
  replayed: boolean;
}

const MAX_BRANCH_DEPTH = 8;

/** The settings a request carries for its conversation. */
function settingsOf(options: GatewayOptions, input: GatewayTurnInput) {
  const windowHeader = Number.parseInt(input.header(MAX_INPUT_TOKENS_HEADER) ?? "", 10);
  const maxInputTokens = windowHeader > 0 ? windowHeader : options.defaultMaxInputTokens;
  const compaction = input.header(COMPACTION_HEADER)?.trim().toLowerCase();
  const profile = resolveProfile({
    model: input.turn.model,
    ...(maxInputTokens ? { maxInputTokens } : {}),
    ...(input.turn.maxOutputTokens ? { maxOutputTokens: input.turn.maxOutputTokens } : {}),
  });
  const setting: "on" | "off" | undefined =
    compaction === "off" || compaction === "on" ? compaction : undefined;
  return { profile, compaction: setting };
}

function titleOf(input: GatewayTurnInput): string {
  const lastUser = [...input.turn.items].reverse().find((item) => item.role === "user");
  const text = textOf(lastUser?.content ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return `${input.client ?? input.turn.api}: ${text.slice(0, 60) || "conversation"}`;
}

/**
 * One client request through longrun: find the conversation's thread, append what is new in the
 * client's history (a retried request is answered from the log; an edited history continues in a
 * branch), project the facts for the model, compact through the queued job when the projection needs
 * it, refuse what cannot fit (context_exhausted), call the upstream with the projection and the client's
 * tools, stream the answer, and record it with the usage of the request actually sent.
 */
export async function runGatewayTurn(
  deps: RuntimeDeps,
  options: GatewayOptions,
  input: GatewayTurnInput,
  sink: TurnSink,
): Promise<GatewayTurnResult> {
  const settings = settingsOf(options, input);
  const clientCompaction = detectClientCompaction(input.turn, input.header);
  if (clientCompaction && (await compactionOnFor(deps, input, settings.compaction))) {
    return answerClientCompaction(deps, options, input, clientCompaction, settings.profile, sink);
  }
  let key = conversationKey(input.turn, input.header).key;
  let branchOf: string | undefined;
  for (let depth = 0; depth <= MAX_BRANCH_DEPTH; depth++) {
    const gateway: GatewayProfile = {
      key,
      api: input.turn.api,
      compaction: settings.compaction ?? "on",
      ...(input.client ? { client: input.client } : {}),
      ...(branchOf ? { branchOf } : {}),
    };
    const conversation = await resolveConversation(deps, options, {
      tenantId: input.tenantId,
      key,
      title: `${titleOf(input)}${branchOf ? " (branch)" : ""}`,
      systemPrompt: input.turn.system,
      profile: settings.profile,
      gateway,
    });
    const lease = await holdAgentLease(deps, conversation.agentId, leaseOptions(options, input.signal));
    let handedOver = false;
    try {
      const facts = await factsOf(deps, conversation.agentId);
      // A history the client rebuilt after its own compaction continues after longrun's checkpoint.
      const match = matchResentHistory(facts, input.turn.items, { checkpoints: depth === 0 });
      if (match.kind === "diverged") {
        branchOf = conversation.thread.id;
        key = branchKey(key, input.turn.items.map(fingerprint), match.at);
        continue;
      }
      if (match.kind === "replay") {
        const replay = replayAnswer(match.answer);
        sink.begin({ threadId: conversation.thread.id, replayed: true });
        for (const event of replay.events) sink.event(event);
        return {
          threadId: conversation.thread.id,
          agentId: conversation.agentId,
          answer: replay.answer,
          replayed: true,
        };
      }
      handedOver = true;
      return await answerTurn(
        deps,
        options,
        input,
        { conversation, lease, append: match.append, settings },
        sink,
      );
    } finally {
      if (!handedOver) await lease.release();
    }
  }
  throw new GatewayError(400, "bad_request", "the history differs from its conversation in too many places");
}

/**
 * Whether longrun compacts the conversation a client's compaction request is about. When it does
 * not, the request is the client's own business and goes upstream like any other.
 */
async function compactionOnFor(
  deps: RuntimeDeps,
  input: GatewayTurnInput,
  requested: "on" | "off" | undefined,
): Promise<boolean> {
  if (requested) return requested === "on";
  const thread = await deps.store.threads.get(
    derivedThreadId(input.tenantId, agentConversationKey(input.turn, input.header).key),
  );
  return (thread?.modelProfile.gateway?.compaction ?? "on") === "on";
}

function leaseOptions(options: GatewayOptions, signal: AbortSignal) {
  return { leaseMs: options.leaseMs ?? 30_000, waitMs: options.leaseWaitMs ?? 60_000, signal };
}

/** The conversation's facts, the system prompt fact left out (the client sends its own each time). */
async function factsOf(deps: RuntimeDeps, agentId: string): Promise<StoredMessage[]> {
  const all = await deps.store.messages.list(agentId, { afterSeq: -1 });
  return all[0]?.role === "system" ? all.slice(1) : all;
}

/** Keeps the stored profile in step with what the client asks for now (window, output, model, setting). */
async function syncProfile(
  deps: RuntimeDeps,
  conversation: GatewayConversation,
  settings: ReturnType<typeof settingsOf>,
): Promise<ModelProfile> {
  const stored = conversation.thread.modelProfile;
  const next: ModelProfile = {
    ...stored,
    model: settings.profile.model,
    maxInputTokens: settings.profile.maxInputTokens,
    maxOutputTokens: settings.profile.maxOutputTokens,
    summarizerModel: settings.profile.summarizerModel,
    ...(stored.gateway && settings.compaction
      ? { gateway: { ...stored.gateway, compaction: settings.compaction } }
      : {}),
  };
  if (JSON.stringify(next) === JSON.stringify(stored)) return stored;
  await deps.store.threads.update(conversation.thread.id, { modelProfile: next });
  return next;
}

async function answerTurn(
  deps: RuntimeDeps,
  options: GatewayOptions,
  input: GatewayTurnInput,
  state: {
    conversation: GatewayConversation;
    lease: TurnLease;
    append: ClientTurn["items"];
    settings: ReturnType<typeof settingsOf>;
  },
  sink: TurnSink,
): Promise<GatewayTurnResult> {
  const { conversation, settings } = state;
  const threadId = conversation.thread.id;
  const agentId = conversation.agentId;
  let lease = state.lease;
  const profile = await syncProfile(deps, conversation, settings);
  const compactionOn = (profile.gateway?.compaction ?? "on") === "on";
  const { runId } = await beginTurn(deps, { threadId, agentId, fence: lease.fence }, state.append);
  const target = (): TurnTarget => ({ threadId, agentId, runId, fence: lease.fence });
  let begun = false;
  try {
    const measure = async (): Promise<Projection> => {
      const context = await loadAgentContext(deps, agentId);
      return projectTurn(deps, context, input.turn, profile);
    };
    /** Releases the lease while the queued compaction job (which takes it) runs, then takes it again. */
    const compact = async (trigger: "auto" | "overflow") => {
      await lease.release();
      const outcome = await compactThroughQueue(deps, options, {
        threadId,
        agentId,
        trigger,
        signal: input.signal,
      });
      lease = await holdAgentLease(deps, agentId, leaseOptions(options, input.signal));
      if (outcome.kind === "timed_out") {
        throw new GatewayError(
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
        rawTokens: projection.rawTokens,
        projectedTokens: projection.tokens,
        maxInputTokens: profile.maxInputTokens ?? null,
        triggerTokens: projection.triggerTokens,
        saved: projection.saved,
        needsCompaction: projection.needsCompaction && compactionOn,
      },
    });
    if (compactionOn && projection.needsCompaction) {
      const gate = await deps.breaker.peek(agentId);
      if (gate.allowed) {
        await compact("auto");
        projection = await measure();
      } else if (!verifyProjection(projection).ok) {
        const retryAfterMs = Math.max(1_000, (gate.retryAt ?? deps.now() + 30_000) - deps.now());
        throw new GatewayError(
          503,
          "compaction_unavailable",
          `compaction is paused (circuit breaker ${gate.state})`,
          {
            retryAfterMs,
          },
        );
      }
    }
    const messagesFor = async (): Promise<ChatMessage[]> => {
      if (compactionOn) {
        const verdict = verifyProjection(projection);
        if (!verdict.ok) throw new GatewayError(400, "context_exhausted", verdict.reason);
        return projection.messages;
      }
      // Compaction off: the client's own history as it is (the client keeps its own window).
      const facts = await factsOf(deps, agentId);
      return [
        ...(input.turn.system ? [{ role: "system" as const, content: input.turn.system }] : []),
        ...toChatMessages(facts),
      ];
    };
    const send = (messages: ChatMessage[]) =>
      streamUpstream(deps.model, upstreamRequest(input.turn, messages, input.turn.model), {
        signal: AbortSignal.any([input.signal, lease.lost]),
        headers: deps.modelHeaders?.(agentId),
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
      });
    let answer: Answer;
    let overflowRetried = false;
    for (;;) {
      const messages = await messagesFor();
      try {
        try {
          answer = await send(messages);
        } catch (error) {
          // Replayed reasoning state refused: it belongs to a chain this request left. Once more without it.
          if (begun || !isInvalidEncryptedContent(error) || !messages.some(hasProviderState)) throw error;
          answer = await send(sanitizeMessages(messages));
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
          throw new GatewayError(
            400,
            "context_exhausted",
            "the provider refused the request as too long after compaction",
          );
        }
        throw error;
      }
    }
    await endTurn(deps, target(), { kind: "answered", answer: answer.message });
    return { threadId, agentId, answer, replayed: false };
  } catch (error) {
    const failure = describeFailure(error, input.signal);
    await endTurn(deps, target(), {
      kind: "failed",
      code: failure.code,
      message: failure.message,
      threadStatus: failure.code === "context_exhausted" ? "context_exhausted" : "idle",
    }).catch(() => undefined);
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
  if (GatewayError.isInstance(error)) return { code: error.code, message: error.message, error };
  if (signal.aborted) return { code: "cancelled", message: "the client went away", error };
  const status = (error as { status?: unknown })?.status;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && /APIConnection/.test(error.constructor.name)) {
    return {
      code: "upstream_error",
      message,
      error: new GatewayError(502, "upstream_error", `upstream model unreachable: ${message}`),
    };
  }
  if (typeof status === "number") {
    const upstream = (error as { code?: unknown; type?: unknown }) ?? {};
    return {
      code: "upstream_error",
      message,
      error: new GatewayError(status, "upstream_error", message, {
        upstreamCode: typeof upstream.code === "string" ? upstream.code : null,
        ...(typeof upstream.type === "string" ? { upstreamType: upstream.type } : {}),
      }),
    };
  }
  return { code: "upstream_error", message, error };
}
