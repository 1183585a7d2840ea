import { type Agent, errorFields } from "@longrun/protocol";
import { appendFactIn, withTokenCount } from "../events/append-fact.ts";
import { commit } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import type { Coordinator } from "./coordinator.ts";
import { threadStatusIn } from "./run-status.ts";

const TERMINAL_AGENT = new Set(["completed", "failed", "cancelled", "context_exhausted"]);

/**
 * A team spawned through the API: once every member ended, the run completes and the reports reach
 * the parent as one user-role fact (the parent made no tool call to answer). True when this call
 * finished the run, so the thread's next run can start.
 */
export async function finishApiTeam(
  deps: RuntimeDeps,
  coordinator: Coordinator,
  child: Agent,
): Promise<boolean> {
  if (!child.spawnCallId?.startsWith("api:")) return false;
  const runId = child.spawnCallId.slice(4);
  const team = (await deps.store.agents.listByThread(child.threadId)).filter(
    (agent) => agent.spawnCallId === child.spawnCallId,
  );
  if (!team.every((agent) => TERMINAL_AGENT.has(agent.status))) return false;
  const run = await deps.store.runs.get(runId);
  if (!run || run.finishedAt) return false;
  const parent = await deps.store.agents.get(run.agentId);
  if (!parent) return false;
  const reports = await Promise.all(team.map((agent) => coordinator.reportOf(agent)));
  const lease = await coordinator.holdAgentLease(parent.id);
  // The parent is busy: the reconciler finishes the team run once it is free.
  if (!lease) return false;
  try {
    // Counted before the transaction: the reports together can be long (see withTokenCount).
    const report = await withTokenCount(deps, {
      role: "user",
      name: "team_report",
      content: `Reports from the sub-agents spawned for you (run ${runId}):\n\n${reports.join("\n\n")}`,
    });
    await commit(deps, async (unit, announce) => {
      const current = await unit.updateRun(runId, {});
      if (current.finishedAt) return;
      await appendFactIn(
        unit,
        announce,
        { threadId: child.threadId, agentId: parent.id, runId, fence: lease.fence },
        report,
      );
      await unit.updateRun(runId, { status: "completed", finishedAt: deps.now() });
      announce({
        threadId: child.threadId,
        agentId: run.agentId,
        runId,
        type: "run.completed",
        data: { report: `team of ${team.length} finished` },
      });
      await threadStatusIn(unit, announce, child.threadId, "idle");
    });
  } finally {
    await lease
      .release()
      .catch((error: unknown) =>
        deps.log.warn(
          { agentId: parent.id, ...errorFields(error) },
          "agent lease not released: it expires by its ttl",
        ),
      );
  }
  return true;
}
