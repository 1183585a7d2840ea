import {
  type Agent,
  LongrunError,
  type PostMessageResult,
  type Run,
  type ThreadStatus,
} from "@longrun/protocol";
import type { StepOutcome } from "./agent-step.ts";
import type { Coordinator } from "./coordinator.ts";
import type { RuntimeDeps, StepJob } from "./runtime-deps.ts";

/**
 * The life of runs: admission (one active run per thread, later ones queued behind it), what happens
 * after each step, cancellation and approvals.
 */
export class RunControl {
  constructor(
    private readonly deps: RuntimeDeps,
    private readonly coordinator: Coordinator,
  ) {}

  /** Admits a user message; `/compact` is a manual compaction, its own turn. */
  async admitMessage(input: {
    threadId: string;
    content: string;
    agentId?: string;
  }): Promise<PostMessageResult> {
    const agent = await this.targetAgent(input.threadId, input.agentId);
    const kind = input.content.trim() === "/compact" ? "compact" : "message";
    const active = await this.deps.store.runs.active(input.threadId);
    const run = await this.deps.store.runs.create({
      threadId: input.threadId,
      agentId: agent.id,
      kind,
      status: "queued",
      input: kind === "message" ? input.content : null,
    });
    if (active.length > 0) {
      await this.deps.events.emit({
        threadId: input.threadId,
        agentId: agent.id,
        runId: run.id,
        type: "run.queued",
        data: { kind, position: active.length },
      });
      return { runId: run.id, messageId: null, queued: true, position: active.length };
    }
    const messageId = await this.startRun(run);
    return { runId: run.id, messageId, queued: false, position: 0 };
  }

  /** Admits a manual compaction of one agent (POST /v1/agents/:id/compact). */
  async admitCompaction(agentId: string): Promise<Run> {
    const agent = await this.deps.store.agents.get(agentId);
    if (!agent) throw new LongrunError("not_found", `agent ${agentId} not found`);
    const active = await this.deps.store.runs.active(agent.threadId);
    const run = await this.deps.store.runs.create({
      threadId: agent.threadId,
      agentId,
      kind: "compact",
      status: "queued",
      input: null,
    });
    if (active.length === 0) await this.startRun(run);
    return (await this.deps.store.runs.get(run.id)) ?? run;
  }

  private async startRun(run: Run): Promise<string | null> {
    const { store, events, scheduler } = this.deps;
    await store.runs.update(run.id, { status: "running", startedAt: this.deps.now() });
    await this.setThreadStatus(run.threadId, "running");
    await events.emit({
      threadId: run.threadId,
      agentId: run.agentId,
      runId: run.id,
      type: "run.started",
      data: { kind: run.kind },
    });
    if (run.kind === "compact") {
      await this.setAgentStatus(run.threadId, run.agentId, run.id, "compacting");
      await scheduler.compact({
        threadId: run.threadId,
        agentId: run.agentId,
        runId: run.id,
        trigger: "manual",
      });
      return null;
    }
    const message = await store.messages.append(run.agentId, { role: "user", content: run.input ?? "" });
    await events.emit({
      threadId: run.threadId,
      agentId: run.agentId,
      runId: run.id,
      type: "message.completed",
      data: { messageId: message.id, seq: message.seq, role: "user", content: message.content },
    });
    await this.setAgentStatus(run.threadId, run.agentId, run.id, "queued");
    await scheduler.step({ threadId: run.threadId, agentId: run.agentId, runId: run.id });
    return message.id;
  }

  /** Applies a step's outcome: schedule the next job, park, or finish the agent (and its run). */
  async afterStep(job: StepJob, outcome: StepOutcome): Promise<void> {
    const { scheduler } = this.deps;
    switch (outcome.kind) {
      case "continue":
        await scheduler.step({ threadId: job.threadId, agentId: job.agentId, runId: job.runId });
        return;
      case "compact":
        await this.setAgentStatus(job.threadId, job.agentId, job.runId, "compacting");
        await scheduler.compact({ ...job, trigger: outcome.trigger });
        return;
      case "wait":
        await scheduler.step(job, { delayMs: Math.max(0, outcome.until - this.deps.now()) });
        return;
      case "parked":
        await this.setAgentStatus(
          job.threadId,
          job.agentId,
          job.runId,
          outcome.reason === "approval" ? "waiting_approval" : "waiting_children",
        );
        if (outcome.reason === "approval")
          await this.deps.store.runs.update(job.runId, { status: "waiting" });
        return;
      case "completed":
        await this.finishAgent(job, "completed", outcome.report);
        return;
      case "exhausted":
        await this.finishAgent(job, "context_exhausted", outcome.reason);
        return;
      case "cancelled":
        return;
      default: {
        const exhaustive: never = outcome;
        throw new Error(`unknown outcome ${JSON.stringify(exhaustive)}`);
      }
    }
  }

  /** Marks an agent finished; a root agent ends its run, a sub-agent reports to its parent. */
  async finishAgent(
    job: StepJob,
    status: "completed" | "failed" | "context_exhausted",
    detail: string,
  ): Promise<void> {
    const { store, events } = this.deps;
    await this.setAgentStatus(
      job.threadId,
      job.agentId,
      job.runId,
      status,
      status === "completed" ? undefined : detail,
    );
    const agent = await store.agents.get(job.agentId);
    if (!agent) return;
    if (agent.parentAgentId) {
      await this.coordinator.resumeParentIfDone(agent);
      await this.finishApiTeamRun(agent);
      return;
    }
    const run = await store.runs.get(job.runId);
    if (!run || run.finishedAt) return;
    if (status === "completed") {
      await store.runs.update(run.id, { status: "completed", finishedAt: this.deps.now() });
      await events.emit({ ...where(job), type: "run.completed", data: { report: detail.slice(0, 4_000) } });
      await this.setThreadStatus(job.threadId, "idle");
    } else {
      const error = { code: status, message: detail };
      await store.runs.update(run.id, { status: "failed", finishedAt: this.deps.now(), error });
      await events.emit({ ...where(job), type: "run.failed", data: { error } });
      await this.setThreadStatus(
        job.threadId,
        status === "context_exhausted" ? "context_exhausted" : "failed",
      );
    }
    await this.startNext(job.threadId);
  }

  /** Ends a manual compaction run: the turn is over until the next user message (I7). */
  async finishCompactionRun(job: StepJob, ok: boolean, detail: string): Promise<void> {
    const { store, events } = this.deps;
    const run = await store.runs.get(job.runId);
    await this.setAgentStatus(
      job.threadId,
      job.agentId,
      job.runId,
      ok ? "idle" : "failed",
      ok ? undefined : detail,
    );
    if (run && !run.finishedAt) {
      if (ok) {
        await store.runs.update(run.id, { status: "completed", finishedAt: this.deps.now() });
        await events.emit({ ...where(job), type: "run.completed", data: { report: detail } });
      } else {
        const error = { code: "compaction_failed", message: detail };
        await store.runs.update(run.id, { status: "failed", finishedAt: this.deps.now(), error });
        await events.emit({ ...where(job), type: "run.failed", data: { error } });
      }
    }
    await this.setThreadStatus(job.threadId, "idle");
    await this.startNext(job.threadId);
  }

  /** Fails a run after an unrecoverable error in one of its jobs. */
  async failRun(job: StepJob, error: { code: string; message: string }): Promise<void> {
    await this.finishAgent(job, "failed", `${error.code}: ${error.message}`);
  }

  /** Starts the oldest queued run of a thread when none is active. */
  async startNext(threadId: string): Promise<void> {
    const runs = await this.deps.store.runs.active(threadId);
    if (runs.some((run) => run.status !== "queued")) return;
    const next = runs.filter((run) => run.status === "queued").sort((a, b) => a.createdAt - b.createdAt)[0];
    if (next) await this.startRun(next);
  }

  /** Cancels a run: queued jobs removed, running steps aborted through the control channel by the caller. */
  async cancel(runId: string, reason = "cancelled by user"): Promise<Run> {
    const { store, events, scheduler } = this.deps;
    const run = await store.runs.get(runId);
    if (!run) throw new LongrunError("not_found", `run ${runId} not found`);
    if (run.finishedAt) return run;
    await store.runs.update(runId, { status: "cancelled", finishedAt: this.deps.now() });
    await scheduler.cancelRun(runId);
    for (const agent of await store.agents.listByThread(run.threadId)) {
      if (!["completed", "failed", "cancelled", "context_exhausted", "idle"].includes(agent.status)) {
        await this.setAgentStatus(
          run.threadId,
          agent.id,
          runId,
          agent.parentAgentId ? "cancelled" : "idle",
          reason,
        );
      }
    }
    await events.emit({
      threadId: run.threadId,
      agentId: run.agentId,
      runId,
      type: "run.cancelled",
      data: { reason },
    });
    await this.setThreadStatus(run.threadId, "idle");
    await this.startNext(run.threadId);
    return (await store.runs.get(runId)) ?? run;
  }

  /** Records a user's decision on a parked tool call and resumes the agent. */
  async resolveApproval(input: {
    /** The agent whose call it is (call ids are unique only per agent); absent: whichever agent has it pending. */
    agentId?: string;
    callId: string;
    decision: "approve" | "deny";
    reason?: string;
  }): Promise<Agent> {
    const { store, events, scheduler } = this.deps;
    const agentId = input.agentId ?? (await store.agentState.findByPendingCall(input.callId));
    const state = agentId ? await store.agentState.get(agentId) : null;
    const pending = state?.pendingApprovals.find((approval) => approval.callId === input.callId);
    if (!agentId || !state || !pending) {
      // An approved call leaves the pending list when it runs; a second decision is a conflict, not unknown.
      const ran = await store.toolRuns.get(input.callId);
      if (ran && (input.agentId === undefined || ran.agentId === input.agentId))
        throw new LongrunError("conflict", `call ${input.callId} was already approved`);
      throw new LongrunError("not_found", `no pending approval for call ${input.callId}`);
    }
    const agent = await store.agents.get(agentId);
    if (!agent) throw new LongrunError("not_found", `agent ${agentId} not found`);
    if (pending.decision)
      throw new LongrunError("conflict", `call ${input.callId} was already ${pending.decision}d`);
    await store.agentState.update(agentId, {
      pendingApprovals: state.pendingApprovals.map((approval) =>
        approval.callId === input.callId
          ? { ...approval, decision: input.decision, reason: input.reason }
          : approval,
      ),
    });
    const runs = await store.runs.active(agent.threadId);
    const run = runs.find((candidate) => candidate.status !== "queued") ?? runs[0];
    const runId = run?.id ?? "none";
    await events.emit({
      threadId: agent.threadId,
      agentId,
      runId,
      type: "approval.resolved",
      data: { callId: input.callId, decision: input.decision, reason: input.reason },
    });
    if (run) await store.runs.update(run.id, { status: "running" });
    await this.setAgentStatus(agent.threadId, agentId, runId, "queued");
    await scheduler.step({ threadId: agent.threadId, agentId, runId }, { jobId: `approval.${input.callId}` });
    return agent;
  }

  private async finishApiTeamRun(child: Agent): Promise<void> {
    if (!child.spawnCallId?.startsWith("api:")) return;
    const runId = child.spawnCallId.slice(4);
    const team = (await this.deps.store.agents.listByThread(child.threadId)).filter(
      (agent) => agent.spawnCallId === child.spawnCallId,
    );
    if (
      !team.every((agent) => ["completed", "failed", "cancelled", "context_exhausted"].includes(agent.status))
    )
      return;
    const run = await this.deps.store.runs.get(runId);
    if (!run || run.finishedAt) return;
    await this.deps.store.runs.update(runId, { status: "completed", finishedAt: this.deps.now() });
    await this.deps.events.emit({
      threadId: child.threadId,
      agentId: run.agentId,
      runId,
      type: "run.completed",
      data: { report: `team of ${team.length} finished` },
    });
    await this.setThreadStatus(child.threadId, "idle");
    await this.startNext(child.threadId);
  }

  private async targetAgent(threadId: string, agentId?: string): Promise<Agent> {
    const agents = await this.deps.store.agents.listByThread(threadId);
    const agent = agentId
      ? agents.find((candidate) => candidate.id === agentId)
      : agents.find((candidate) => !candidate.parentAgentId);
    if (!agent)
      throw new LongrunError(
        "not_found",
        agentId ? `agent ${agentId} not in thread ${threadId}` : `thread ${threadId} has no root agent`,
      );
    return agent;
  }

  /** Persists a thread's status and announces it when it changed. */
  async setThreadStatus(threadId: string, status: ThreadStatus): Promise<void> {
    const before = await this.deps.store.threads.get(threadId);
    if (before?.status === status) return;
    await this.deps.store.threads.setStatus(threadId, status);
    await this.deps.events.emit({ threadId, type: "thread.status", data: { status } });
  }

  /** Persists an agent's status and announces it. */
  async setAgentStatus(
    threadId: string,
    agentId: string,
    runId: string,
    status: Agent["status"],
    reason?: string,
  ) {
    await this.deps.store.agents.setStatus(agentId, status);
    await this.deps.events.emit({ threadId, agentId, runId, type: "agent.status", data: { status, reason } });
  }
}

function where(job: StepJob) {
  return { threadId: job.threadId, agentId: job.agentId, runId: job.runId };
}
