import type { Run } from "@longrun/protocol";
import type { StepJob } from "@longrun/queue";
import { commit } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { agentStatusIn, threadStatusIn } from "./run-status.ts";

const TERMINAL_AGENT = new Set(["completed", "failed", "cancelled", "context_exhausted"]);

function where(job: StepJob) {
  return { threadId: job.threadId, agentId: job.agentId, runId: job.runId };
}

/** A root agent finished: its run completes or fails with it, and the thread goes idle (or says why not). */
export async function endRootRun(
  deps: RuntimeDeps,
  job: StepJob,
  status: "completed" | "failed" | "context_exhausted",
  detail: string,
): Promise<void> {
  await commit(deps, async (unit, announce) => {
    await agentStatusIn(unit, announce, job, status, status === "completed" ? undefined : detail);
    // A run that is not there (deleted with its thread) has nothing to end.
    const run = await unit.updateRun(job.runId, {}).catch(() => null);
    if (!run || run.finishedAt) return;
    if (status === "completed") {
      await unit.updateRun(run.id, { status: "completed", finishedAt: deps.now(), error: null });
      announce({ ...where(job), type: "run.completed", data: { report: detail.slice(0, 4_000) } });
      await threadStatusIn(unit, announce, job.threadId, "idle");
    } else {
      const error = { code: status, message: detail };
      await unit.updateRun(run.id, { status: "failed", finishedAt: deps.now(), error });
      announce({ ...where(job), type: "run.failed", data: { error } });
      await threadStatusIn(
        unit,
        announce,
        job.threadId,
        status === "context_exhausted" ? "context_exhausted" : "failed",
      );
    }
  });
}

/** Ends a manual compaction run: the turn is over until the next user message (I7). */
export async function endCompactionRun(
  deps: RuntimeDeps,
  job: StepJob,
  ok: boolean,
  detail: string,
): Promise<void> {
  await commit(deps, async (unit, announce) => {
    await agentStatusIn(unit, announce, job, ok ? "idle" : "failed", ok ? undefined : detail);
    // A run that is not there (deleted with its thread) has nothing to end.
    const run = await unit.updateRun(job.runId, {}).catch(() => null);
    if (run && !run.finishedAt) {
      if (ok) {
        await unit.updateRun(run.id, { status: "completed", finishedAt: deps.now(), error: null });
        announce({ ...where(job), type: "run.completed", data: { report: detail } });
      } else {
        const error = { code: "compaction_failed", message: detail };
        await unit.updateRun(run.id, { status: "failed", finishedAt: deps.now(), error });
        announce({ ...where(job), type: "run.failed", data: { error } });
      }
    }
    await threadStatusIn(unit, announce, job.threadId, "idle");
  });
}

/** Cancels a run in one transaction (its agents stop, the thread goes idle); false when it had ended. */
export async function recordCancel(deps: RuntimeDeps, run: Run, reason: string): Promise<boolean> {
  const agents = await deps.store.agents.listByThread(run.threadId);
  const runId = run.id;
  return commit(deps, async (unit, announce) => {
    const current = await unit.updateRun(runId, {});
    if (current.finishedAt) return false;
    await unit.updateRun(runId, { status: "cancelled", finishedAt: deps.now() });
    for (const agent of agents) {
      if (TERMINAL_AGENT.has(agent.status) || agent.status === "idle") continue;
      await agentStatusIn(
        unit,
        announce,
        { threadId: run.threadId, agentId: agent.id, runId },
        agent.parentAgentId ? "cancelled" : "idle",
        reason,
      );
    }
    announce({
      threadId: run.threadId,
      agentId: run.agentId,
      runId,
      type: "run.cancelled",
      data: { reason },
    });
    await threadStatusIn(unit, announce, run.threadId, "idle");
    return true;
  });
}
