import {
  type Answer,
  type ClientCompaction,
  checkpointMarker,
  replayAnswer,
  textOf,
} from "@longrun/openai-compat";
import type { ModelProfile, StoredMessage } from "@longrun/protocol";
import { DEFAULT_LEASE_MS } from "@longrun/queue";
import { loadAgentContext } from "../context/agent-context.ts";
import { appendFact } from "../events/append-fact.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import type { ClientTurnOptions } from "./client-turn-options.ts";
import { learnedClientWindow, usageForClient } from "./client-window.ts";
import { gatewayCompactionStrategy } from "./compaction-strategy.ts";
import { compactedThread } from "./conversation-finder.ts";
import { countClientTurnTokens } from "./count-turn.ts";
import { compactThroughQueue } from "./queued-compaction.ts";
import { matchResentHistory } from "./resent-history.ts";
import type { ClientTurnInput, ClientTurnResult, TurnSink } from "./turn-context.ts";
import { holdTurnLease } from "./turn-lease.ts";
import { projectTurn } from "./turn-projection.ts";

/**
 * Answers a client's own compaction request from longrun's compaction. The conversation items it
 * carries are recorded like any turn's; longrun compacts its log when its projection needs it, and
 * the answer opens with a checkpoint marker, so the history the client rebuilds around it continues
 * the same thread (see splitAtCheckpoint). The request and its answer are not conversation: neither
 * becomes a fact, and nothing is sent upstream but the summary job.
 */
export async function answerClientCompaction(
  deps: RuntimeDeps,
  options: ClientTurnOptions,
  input: ClientTurnInput,
  detected: ClientCompaction,
  settings: { profile: ModelProfile; clientWindow?: number },
  sink: TurnSink,
): Promise<ClientTurnResult> {
  const { profile, clientWindow } = settings;
  const { threadId, thread } = await compactedThread(deps, options, input, detected);
  const agentId = thread
    ? (await deps.store.agents.listByThread(threadId)).find((agent) => !agent.parentAgentId)?.id
    : undefined;
  let text = `${checkpointMarker(-1)}\nlongrun has no conversation to summarize yet.`;
  let tokens = 0;
  if (thread && agentId) {
    const leaseSettings = {
      leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
      waitMs: options.leaseWaitMs ?? 60_000,
      signal: input.signal,
    };
    let lease = await holdTurnLease(deps, agentId, leaseSettings);
    try {
      const all = await deps.store.messages.list(agentId, { afterSeq: -1 });
      const facts: StoredMessage[] = all[0]?.role === "system" ? all.slice(1) : all;
      const match = matchResentHistory(facts, detected.conversationItems, { checkpoints: true });
      if (match.kind === "extend") {
        for (const message of match.append) {
          await appendFact(deps, { threadId, agentId, fence: lease.fence }, message);
        }
      }
      let projection = await projectTurn(deps, await loadAgentContext(deps, agentId), input.turn, profile);
      if (projection.needsCompaction) {
        await lease.release();
        await compactThroughQueue(deps, options, {
          threadId,
          agentId,
          trigger: "auto",
          strategy: gatewayCompactionStrategy(projection, profile),
          signal: input.signal,
        });
        lease = await holdTurnLease(deps, agentId, leaseSettings);
      }
      const context = await loadAgentContext(deps, agentId);
      projection = await projectTurn(
        deps,
        context,
        { system: context.systemPrompt ?? "", tools: [] },
        profile,
      );
      tokens = projection.tokens;
      const lastSeq = (await deps.store.messages.last(agentId))?.seq ?? 0;
      if (!clientWindow) await learnClientWindow(deps, threadId, facts);
      const summary = context.compaction ? textOf(context.compaction.summaryMessage.content) : "";
      text = [
        checkpointMarker(lastSeq, threadId),
        "longrun keeps this conversation's complete history and sends the model a compacted projection of it; nothing was lost.",
        summary || "(No compaction was needed yet: the whole history still fits the window.)",
      ].join("\n");
    } finally {
      await lease.release();
    }
  }
  // qwen-code and Gemini CLI weigh the answer against their own count of the history they sent: they
  // keep it when before − (prompt tokens − 1,000) + summary tokens + restored files ≤ before, else they
  // discard it and ask again (qwen-code 0.24: COMPRESSION_FAILED_INFLATED_TOKEN_COUNT, then "Context is
  // too large to send safely"). Their answer reports the size of the request they sent, which is what
  // a model that read it would report; the others are told the projection longrun keeps.
  if (detected.client === "snapshot") {
    tokens = await countClientTurnTokens(input.turn, deps.tokenizer, deps.counter);
  }
  const reply = replayAnswer({ role: "assistant", content: text });
  const answer: Answer = {
    ...reply.answer,
    usage: {
      promptTokens: tokens,
      completionTokens: deps.tokenizer.count(text),
      totalTokens: tokens + deps.tokenizer.count(text),
    },
  };
  sink.begin({ threadId, replayed: false });
  for (const event of reply.events) sink.event(event);
  return { threadId, agentId: agentId ?? "", answer, replayed: false };
}

/**
 * Learns the client's window from its compaction request (when it declared none): the size it was
 * told last, which reached its threshold. Stored on the thread, so every later answer is scaled to it.
 */
async function learnClientWindow(deps: RuntimeDeps, threadId: string, facts: StoredMessage[]) {
  const thread = await deps.store.threads.get(threadId);
  const gateway = thread?.modelProfile.gateway;
  if (!thread || !gateway) return;
  const told = facts.findLast((fact) => fact.role === "assistant" && fact.usage)?.usage;
  const learned = learnedClientWindow(usageForClient(told, thread.modelProfile), thread.modelProfile);
  if (!learned || learned === gateway.clientWindow) return;
  await deps.store.threads.update(threadId, {
    modelProfile: { ...thread.modelProfile, gateway: { ...gateway, clientWindow: learned } },
  });
}
