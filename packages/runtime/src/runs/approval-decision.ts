import { type Agent, LongrunError } from "@longrun/protocol";
import { commit } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { agentStatusIn } from "./run-status.ts";

/**
 * Records a user's decision on a parked tool call and resumes the agent. Exactly one decision per
 * call wins, across every server instance: a second one is a conflict.
 */
export async function decideApproval(
  deps: RuntimeDeps,
  input: { agentId: string; callId: string; decision: "approve" | "deny"; reason?: string },
): Promise<Agent> {
  const { store, scheduler } = deps;
  const agent = await store.agents.get(input.agentId);
  if (!agent) throw new LongrunError("not_found", `no pending approval for call ${input.callId}`);
  const runs = await store.runs.active(agent.threadId);
  const run = runs.find((candidate) => candidate.status !== "queued") ?? runs[0];
  const runId = run?.id ?? "none";
  const where = { threadId: agent.threadId, agentId: agent.id, runId };
  await commit(deps, async (unit, announce) => {
    const result = await unit.decideApproval({
      agentId: agent.id,
      callId: input.callId,
      decision: input.decision,
      reason: input.reason ?? null,
    });
    if (!result.ok && result.reason === "not_found") {
      throw new LongrunError("not_found", `no pending approval for call ${input.callId}`);
    }
    if (!result.ok) {
      throw new LongrunError(
        "conflict",
        `call ${input.callId} was already ${result.approval.decision === "approve" ? "approved" : "denied"}`,
      );
    }
    announce({
      ...where,
      type: "approval.resolved",
      data: { callId: input.callId, decision: input.decision, reason: input.reason },
    });
    if (run && run.status === "waiting") await unit.updateRun(run.id, { status: "running" });
    await agentStatusIn(unit, announce, where, "queued");
  });
  // No fixed job id: a later decision (another call) must never be dropped as a duplicate.
  if (run) await scheduler.step(where);
  return agent;
}
