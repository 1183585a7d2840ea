import {
  agentConversationKey,
  branchKey,
  conversationKey,
  derivedThreadId,
  detectClientCompaction,
  fingerprint,
  replayAnswer,
  textOf,
} from "@longrun/openai-compat";
import type { GatewayProfile } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { answerTurn } from "./answer-turn.ts";
import { answerClientCompaction } from "./client-compaction-turn.ts";
import { ClientTurnError } from "./client-turn-error.ts";
import type { ClientTurnOptions } from "./client-turn-options.ts";
import { cacheFiguresForClient, usageForClient } from "./client-window.ts";
import { continuedThread, rememberConversation } from "./conversation-finder.ts";
import { resolveConversation } from "./conversation-thread.ts";
import { matchResentHistory } from "./resent-history.ts";
import {
  type ClientTurnInput,
  type ClientTurnResult,
  factsOf,
  leaseOptions,
  settingsOf,
  type TurnSettings,
  type TurnSink,
} from "./turn-context.ts";
import { holdTurnLease } from "./turn-lease.ts";

export type { ClientTurnInput, ClientTurnResult, TurnSink } from "./turn-context.ts";

const MAX_BRANCH_DEPTH = 8;

function titleOf(input: ClientTurnInput): string {
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
export async function runClientTurn(
  deps: RuntimeDeps,
  options: ClientTurnOptions,
  input: ClientTurnInput,
  sink: TurnSink,
): Promise<ClientTurnResult> {
  const settings = settingsOf(options, input);
  const clientCompaction = detectClientCompaction(input.turn, input.header);
  if (clientCompaction && (await compactionOnFor(deps, input, settings.compaction))) {
    const answered = await answerClientCompaction(deps, options, input, clientCompaction, settings, sink);
    // A snapshot client compares the answer's prompt tokens with its own unscaled count of what it
    // sent (see answerClientCompaction): scaled to its window, the summary looks like it grew the history.
    return clientCompaction.client === "snapshot" ? answered : forClient(deps, answered);
  }
  return forClient(deps, await conversationTurn(deps, options, input, settings, sink));
}

/** The answer as the client is told it: usage scaled to the client's own window when it has one. */
async function forClient(deps: RuntimeDeps, result: ClientTurnResult): Promise<ClientTurnResult> {
  const profile = (await deps.store.threads.get(result.threadId))?.modelProfile;
  if (!profile?.gateway?.clientWindow) return result;
  const usage = usageForClient(result.answer.usage, profile);
  const promptCache = cacheFiguresForClient(result.promptCache, profile);
  return {
    ...result,
    answer: { ...result.answer, ...(usage ? { usage } : {}) },
    ...(promptCache ? { promptCache } : {}),
  };
}

/** A turn of the conversation itself (not the client's compaction request). */
async function conversationTurn(
  deps: RuntimeDeps,
  options: ClientTurnOptions,
  input: ClientTurnInput,
  settings: TurnSettings,
  sink: TurnSink,
): Promise<ClientTurnResult> {
  // A client without a session id that rebuilt its history after its compaction is found by longrun's checkpoint.
  const continued = await continuedThread(deps, input);
  let key = continued?.modelProfile.gateway?.key ?? conversationKey(input.turn, input.header).key;
  let branchOf: string | undefined = continued?.modelProfile.gateway?.branchOf;
  for (let depth = 0; depth <= MAX_BRANCH_DEPTH; depth++) {
    const gateway: GatewayProfile = {
      key,
      api: input.turn.api,
      compaction: settings.compaction ?? "on",
      ...(settings.clientWindow ? { clientWindow: settings.clientWindow } : {}),
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
    const lease = await holdTurnLease(deps, conversation.agentId, leaseOptions(options, input.signal));
    let handedOver = false;
    try {
      const facts = await factsOf(deps, conversation.agentId);
      // A history the client rebuilt after its own compaction continues after longrun's checkpoint.
      const match = matchResentHistory(facts, input.turn.items, { checkpoints: depth === 0 });
      if (match.kind === "diverged") {
        branchOf = conversation.thread.id;
        key = branchKey(key, input.turn.items.map(fingerprint), branchPoint(input.turn.items, match.at));
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
      if (!continued && depth === 0) rememberConversation(options, input, conversation.thread.id);
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
  throw new ClientTurnError(
    400,
    "bad_request",
    "the history differs from its conversation in too many places",
  );
}

/**
 * The last item a branch's key is made of. An item the client wrote (a user message, a tool result)
 * that differs names its branch with it: each edit gets its own. An answer that differs, or a history
 * that ends before the log, is keyed by what comes before: a second session with the same first
 * prompt (no session id) sends `[prompt]` first, which ends before the first session's log, then
 * `[prompt, its own answer, …]`, which differs at that answer — both must find the one branch its
 * first answer was recorded in, not split it over two.
 */
function branchPoint(items: ClientTurnInput["turn"]["items"], at: number): number {
  const differing = items[at];
  return differing === undefined || differing.role === "assistant" ? at - 1 : at;
}

/**
 * Whether longrun compacts the conversation a client's compaction request is about. When it does
 * not, the request is the client's own business and goes upstream like any other.
 */
async function compactionOnFor(
  deps: RuntimeDeps,
  input: ClientTurnInput,
  requested: "on" | "off" | undefined,
): Promise<boolean> {
  if (requested) return requested === "on";
  const thread = await deps.store.threads.get(
    derivedThreadId(input.tenantId, agentConversationKey(input.turn, input.header).key),
  );
  return (thread?.modelProfile.gateway?.compaction ?? "on") === "on";
}
