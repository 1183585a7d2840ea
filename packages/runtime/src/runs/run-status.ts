import type { Agent, Run, ThreadStatus } from "@longrun/protocol";
import type { UnitOfWork } from "@longrun/store";
import { type Announce, commit } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** Writes a thread's status in `unit` and announces it when it changed. */
export async function threadStatusIn(
  unit: UnitOfWork,
  announce: Announce,
  threadId: string,
  status: ThreadStatus,
): Promise<void> {
  if (await unit.setThreadStatus(threadId, status)) {
    announce({ threadId, type: "thread.status", data: { status } });
  }
}

/** Writes an agent's status in `unit` and announces it. */
export async function agentStatusIn(
  unit: UnitOfWork,
  announce: Announce,
  target: { threadId: string; agentId: string; runId: string },
  status: Agent["status"],
  reason?: string,
  until?: number,
): Promise<void> {
  await unit.setAgentStatus(target.agentId, status);
  announce({
    ...target,
    type: "agent.status",
    data: { status, reason, ...(until === undefined ? {} : { until }) },
  });
}

/** Marks a run that cannot progress, with the reason, so it is visible instead of silent. */
export async function markRunStuck(deps: RuntimeDeps, run: Run, reason: string): Promise<void> {
  await commit(deps, async (unit, announce) => {
    const current = await unit.updateRun(run.id, {});
    if (current.finishedAt || current.status === "stuck") return;
    await unit.updateRun(run.id, { status: "stuck", error: { code: "stuck", message: reason } });
    announce({
      threadId: run.threadId,
      agentId: run.agentId,
      runId: run.id,
      type: "run.stuck",
      data: { reason },
    });
  });
}

/** A stuck run that moves again is running again. */
export async function markRunMoving(deps: RuntimeDeps, runId: string): Promise<void> {
  const run = await deps.store.runs.get(runId);
  if (run?.status !== "stuck") return;
  await commit(deps, async (unit, announce) => {
    const current = await unit.updateRun(runId, {});
    if (current.status !== "stuck") return;
    await unit.updateRun(runId, { status: "running", error: null });
    announce({
      threadId: run.threadId,
      agentId: run.agentId,
      runId,
      type: "run.resumed",
      data: { reason: "the run is moving again" },
    });
  });
}
