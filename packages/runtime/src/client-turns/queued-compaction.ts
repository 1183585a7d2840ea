import type { CompactionStrategy, LongrunEvent } from "@longrun/protocol";
import { commit } from "../events/commit.ts";
import { waitForEvent } from "../events/event-waiter.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import type { ClientTurnOptions } from "./client-turn-options.ts";

/** How a gateway's compaction request ended. */
export type QueuedCompactionOutcome =
  | { kind: "compacted"; tokensBefore: number; tokensAfter: number }
  | { kind: "not_compacted"; reason: string; contextExhausted: boolean }
  | { kind: "timed_out" };

/**
 * Compacts a conversation the way longrun's own agents are compacted: a compaction run and a queued
 * `agent.compact` job (deduplicated per agent, behind the agent's circuit breaker, run by any worker),
 * then waits for its `compaction.completed` or `compaction.failed`. The caller must not hold the
 * agent's lease: the job takes it. A compaction run takes no agent steps after it (the job runner
 * skips steps of compact runs), so the client stays the only one driving the conversation.
 */
export async function compactThroughQueue(
  deps: RuntimeDeps,
  options: Pick<ClientTurnOptions, "live" | "compactionTimeoutMs">,
  target: {
    threadId: string;
    agentId: string;
    trigger: "auto" | "overflow";
    strategy?: CompactionStrategy;
    signal?: AbortSignal;
  },
): Promise<QueuedCompactionOutcome> {
  const { threadId, agentId } = target;
  const afterSeq = await deps.store.events.head(threadId);
  const run = await deps.store.runs.create({
    threadId,
    agentId,
    kind: "compact",
    status: "running",
    input: JSON.stringify({ gateway: true, trigger: target.trigger }),
  });
  await commit(deps, async (unit, announce) => {
    await unit.updateRun(run.id, { startedAt: deps.now() });
    announce({ threadId, agentId, runId: run.id, type: "run.started", data: { kind: "compact" } });
  });
  await deps.scheduler.compact({
    threadId,
    agentId,
    runId: run.id,
    trigger: target.trigger,
    ...(target.strategy ? { strategy: target.strategy } : {}),
  });
  // Any terminal compaction event of this agent after the request counts: a job for the agent that
  // was already queued (the queue deduplicates per agent) does the same work.
  const ended = await waitForEvent(deps, options.live, {
    threadId,
    afterSeq,
    timeoutMs: options.compactionTimeoutMs ?? 5 * 60_000,
    signal: target.signal,
    matches: (event) =>
      event.agentId === agentId &&
      (event.type === "compaction.completed" ||
        event.type === "compaction.failed" ||
        event.type === "compaction.skipped"),
  });
  await finishRun(deps, run.id, { threadId, agentId }, ended);
  if (!ended) return { kind: "timed_out" };
  if (ended.type === "compaction.completed") {
    return { kind: "compacted", tokensBefore: ended.data.tokensBefore, tokensAfter: ended.data.tokensAfter };
  }
  if (ended.type === "compaction.skipped") {
    return { kind: "not_compacted", reason: ended.data.reason, contextExhausted: false };
  }
  if (ended.type === "compaction.failed") {
    return {
      kind: "not_compacted",
      reason: ended.data.reason,
      contextExhausted: ended.data.contextExhausted,
    };
  }
  return { kind: "timed_out" };
}

async function finishRun(
  deps: RuntimeDeps,
  runId: string,
  where: { threadId: string; agentId: string },
  ended: LongrunEvent | null,
) {
  await commit(deps, async (unit, announce) => {
    const current = await unit.updateRun(runId, {});
    if (current.finishedAt) return;
    if (ended?.type === "compaction.completed" || ended?.type === "compaction.skipped") {
      await unit.updateRun(runId, { status: "completed", finishedAt: deps.now(), error: null });
      announce({
        ...where,
        runId,
        type: "run.completed",
        data: {
          report:
            ended.type === "compaction.skipped"
              ? "nothing to compact for a gateway request"
              : "compacted for a gateway request",
        },
      });
      return;
    }
    const message =
      ended?.type === "compaction.failed" ? ended.data.reason : "the compaction job did not finish in time";
    const error = { code: "compaction_failed", message };
    await unit.updateRun(runId, { status: "failed", finishedAt: deps.now(), error });
    announce({ ...where, runId, type: "run.failed", data: { error } });
  });
}
