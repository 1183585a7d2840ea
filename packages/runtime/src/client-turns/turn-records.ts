import type { NewMessage, StoredMessage, ThreadStatus } from "@longrun/protocol";
import { appendFactIn, withTokenCount } from "../events/append-fact.ts";
import { commit } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** Where a gateway turn writes: its thread, agent, run and the lease fence. */
export interface TurnTarget {
  threadId: string;
  agentId: string;
  runId: string;
  fence: number;
}

/**
 * Opens a gateway turn in one transaction: runs left active by an interrupted turn are closed, the
 * turn's run starts, the client's new items become facts, the thread shows as running.
 */
export async function beginTurn(
  deps: RuntimeDeps,
  target: Omit<TurnTarget, "runId">,
  append: readonly NewMessage[],
): Promise<{ runId: string; appended: StoredMessage[] }> {
  const { threadId, agentId } = target;
  // Nothing else drives a gateway conversation: with the lease held, an active run is a leftover.
  const stale = await deps.store.runs.active(threadId);
  // Counted before the transaction (large ones off the event loop): clients resend whole histories.
  const counted = await Promise.all(append.map((message) => withTokenCount(deps, message)));
  const run = await deps.store.runs.create({ threadId, agentId, kind: "message", status: "running" });
  const appended = await commit(deps, async (unit, announce) => {
    for (const leftover of stale) {
      const error = { code: "interrupted", message: "the gateway request that owned this run ended early" };
      await unit.updateRun(leftover.id, { status: "failed", finishedAt: deps.now(), error });
      announce({
        threadId,
        agentId: leftover.agentId,
        runId: leftover.id,
        type: "run.failed",
        data: { error },
      });
    }
    await unit.updateRun(run.id, { startedAt: deps.now() });
    announce({ threadId, agentId, runId: run.id, type: "run.started", data: { kind: "message" } });
    const stored: StoredMessage[] = [];
    for (const message of counted) {
      stored.push(await appendFactIn(unit, announce, { ...target, runId: run.id }, message));
    }
    if (await unit.setThreadStatus(threadId, "running")) {
      announce({ threadId, type: "thread.status", data: { status: "running" } });
    }
    return stored;
  });
  return { runId: run.id, appended };
}

/** Closes a gateway turn: the answer (if any) becomes a fact, the run ends, the thread shows why. */
export async function endTurn(
  deps: RuntimeDeps,
  target: TurnTarget,
  outcome:
    | { kind: "answered"; answer: NewMessage }
    | { kind: "failed"; code: string; message: string; threadStatus: ThreadStatus },
): Promise<StoredMessage | null> {
  const { threadId, agentId, runId } = target;
  // A compaction job may have left the agent waiting or exhausted; between requests it is idle.
  const agentStatus = (await deps.store.agents.get(agentId))?.status;
  // An upstream's answer can be any length: counted before the transaction, a long one off the loop.
  const answer = outcome.kind === "answered" ? await withTokenCount(deps, outcome.answer) : null;
  return commit(deps, async (unit, announce) => {
    let stored: StoredMessage | null = null;
    const run = await unit.updateRun(runId, {});
    if (answer !== null) {
      stored = await appendFactIn(unit, announce, target, answer);
    }
    if (!run.finishedAt) {
      if (outcome.kind === "answered") {
        await unit.updateRun(runId, { status: "completed", finishedAt: deps.now(), error: null });
        announce({ threadId, agentId, runId, type: "run.completed", data: {} });
      } else {
        const error = { code: outcome.code, message: outcome.message };
        await unit.updateRun(runId, { status: "failed", finishedAt: deps.now(), error });
        announce({ threadId, agentId, runId, type: "run.failed", data: { error } });
      }
    }
    if (agentStatus !== undefined && agentStatus !== "idle") {
      await unit.setAgentStatus(agentId, "idle");
      announce({ threadId, agentId, runId, type: "agent.status", data: { status: "idle" } });
    }
    const status = outcome.kind === "answered" ? "idle" : outcome.threadStatus;
    if (await unit.setThreadStatus(threadId, status)) {
      announce({ threadId, type: "thread.status", data: { status } });
    }
    return stored;
  });
}
