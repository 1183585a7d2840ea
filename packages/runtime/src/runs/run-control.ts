import {
  type Agent,
  type ApprovalRule,
  type ApprovalRuleScope,
  LongrunError,
  type PostMessageResult,
  type Run,
  type SpawnAgentSpec,
  type ThreadStatus,
} from "@longrun/protocol";
import type { StepJob } from "@longrun/queue";
import { commit } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import type { StepOutcome } from "../step/agent-step.ts";
import { finishApiTeam } from "./api-team-run.ts";
import { decideApproval } from "./approval-decision.ts";
import { planRuleFromDecision } from "./approval-rules.ts";
import type { Coordinator } from "./coordinator.ts";
import { admissionSpan, admitRun, recordRunStart } from "./run-admission.ts";
import { endCompactionRun, endRootRun, recordCancel } from "./run-ending.ts";
import { agentStatusIn, markRunMoving, markRunStuck, threadStatusIn } from "./run-status.ts";

/** Why a run stopped for a new message (multitask: interrupt). */
export const INTERRUPTED_AT_BOUNDARY = "interrupted by a new message at the step boundary";

/** Root-agent statuses with no step in flight: an interrupt there takes effect at once. */
const BETWEEN_STEPS = new Set<Agent["status"]>(["waiting", "waiting_approval", "waiting_children", "idle"]);

/**
 * The life of runs: admission (one active run per thread, later ones queued behind it), what happens
 * after each step, cancellation and approvals. Every change of state and its event commit together.
 */
export class RunControl {
  constructor(
    private readonly deps: RuntimeDeps,
    private readonly coordinator: Coordinator,
  ) {}

  /** Admits a user message; `/compact` is a manual compaction, its own turn. */
  admitMessage(input: { threadId: string; content: string; agentId?: string }): Promise<PostMessageResult> {
    return admissionSpan(
      { threadId: input.threadId },
      () => this.admitMessageNow(input),
      (result) => result.runId,
    );
  }

  private async admitMessageNow(input: {
    threadId: string;
    content: string;
    agentId?: string;
  }): Promise<PostMessageResult> {
    const agent = await this.targetAgent(input.threadId, input.agentId);
    const kind = input.content.trim() === "/compact" ? "compact" : "message";
    const { run, position } = await admitRun(this.deps, {
      threadId: input.threadId,
      agentId: agent.id,
      kind,
      input: kind === "message" ? input.content : null,
    });
    if (position > 0) return { runId: run.id, messageId: null, queued: true, position };
    const messageId = await this.startRun(run);
    return { runId: run.id, messageId, queued: false, position: 0 };
  }

  /** Admits a manual compaction of one agent (POST /v1/agents/:id/compact). */
  admitCompaction(agentId: string, options: { strategy?: "partial" | "full" } = {}): Promise<Run> {
    return admissionSpan(
      { agentId },
      () => this.admitCompactionNow(agentId, options),
      (run) => run.id,
    );
  }

  private async admitCompactionNow(
    agentId: string,
    options: { strategy?: "partial" | "full" },
  ): Promise<Run> {
    const agent = await this.deps.store.agents.get(agentId);
    if (!agent) throw new LongrunError("not_found", `agent ${agentId} not found`);
    const { run, position } = await admitRun(this.deps, {
      threadId: agent.threadId,
      agentId,
      kind: "compact",
      // A queued compaction remembers its strategy until it starts.
      input: options.strategy ? JSON.stringify({ strategy: options.strategy }) : null,
    });
    if (position === 0) await this.startRun(run);
    return (await this.deps.store.runs.get(run.id)) ?? run;
  }

  /** Admits a team spawned through the API: queued behind an active run like any other. */
  admitSpawn(agentId: string, specs: SpawnAgentSpec[]): Promise<{ run: Run; agents: Agent[] }> {
    return admissionSpan(
      { agentId },
      () => this.admitSpawnNow(agentId, specs),
      (result) => result.run.id,
    );
  }

  private async admitSpawnNow(
    agentId: string,
    specs: SpawnAgentSpec[],
  ): Promise<{ run: Run; agents: Agent[] }> {
    const agent = await this.deps.store.agents.get(agentId);
    if (!agent) throw new LongrunError("not_found", `agent ${agentId} not found`);
    const { run, position } = await admitRun(this.deps, {
      threadId: agent.threadId,
      agentId,
      kind: "spawn",
      input: JSON.stringify({ agents: specs }),
    });
    if (position > 0) return { run, agents: [] };
    await this.startRun(run);
    const agents = (await this.deps.store.agents.children(agentId)).filter(
      (child) => child.spawnCallId === `api:${run.id}`,
    );
    return { run: (await this.deps.store.runs.get(run.id)) ?? run, agents };
  }

  /**
   * Starts a run in one transaction (run, thread and agent status, the user message and their events),
   * then schedules its first job. A crash before the schedule leaves a running run with a queued
   * agent and no job: the reconciler schedules it.
   */
  private async startRun(run: Run): Promise<string | null> {
    const messageId = await recordRunStart(this.deps, run);
    try {
      await this.scheduleRunStart(run);
    } catch (error) {
      // The queue went away after the run was recorded: the run is durable, and the reconciler issues
      // its first job once the queue is back. Nothing is lost, nothing is started twice.
      if (!(LongrunError.isInstance(error) && error.code === "unavailable")) throw error;
    }
    return messageId;
  }

  /**
   * The first job of a started run (also what the reconciler re-issues when it was lost), recorded as
   * the run's `jobId` so an operator can find it in the queue. A spawn run's jobs are its members'.
   */
  async scheduleRunStart(run: Run): Promise<void> {
    const job = { threadId: run.threadId, agentId: run.agentId, runId: run.id };
    if (run.kind === "spawn") {
      const specs = parseJson<{ agents?: SpawnAgentSpec[] }>(run.input)?.agents ?? [];
      await this.coordinator.spawnFromApi(run.agentId, run.id, specs);
      return;
    }
    let jobId: string;
    if (run.kind === "compact") {
      const strategy = parseJson<{ strategy?: "partial" | "full" }>(run.input)?.strategy;
      jobId = await this.deps.scheduler.compact({
        ...job,
        trigger: "manual",
        ...(strategy ? { strategy } : {}),
      });
    } else {
      jobId = await this.deps.scheduler.step(job);
    }
    await this.deps.store.runs.update(run.id, { jobId });
  }

  /**
   * Applies a step's outcome: schedule the next job, park, or finish the agent (and its run).
   * `expectSeq`: the agent's last seq as the step left it (saves reading it back).
   */
  async afterStep(job: StepJob, outcome: StepOutcome, known: { expectSeq?: number } = {}): Promise<void> {
    const { scheduler } = this.deps;
    switch (outcome.kind) {
      case "continue":
        await scheduler.step({ threadId: job.threadId, agentId: job.agentId, runId: job.runId }, known);
        return;
      case "compact":
        await this.setAgentStatus(job.threadId, job.agentId, job.runId, "compacting");
        await scheduler.compact({ ...job, trigger: outcome.trigger });
        return;
      case "wait":
        // Say what the agent waits for and until when, rather than looking busy.
        await this.setAgentStatus(
          job.threadId,
          job.agentId,
          job.runId,
          "waiting",
          waitReason(outcome),
          outcome.until,
        );
        await scheduler.step(job, { delayMs: Math.max(0, outcome.until - this.deps.now()) });
        return;
      case "parked":
        await commit(this.deps, async (unit, announce) => {
          await agentStatusIn(
            unit,
            announce,
            job,
            outcome.reason === "approval" ? "waiting_approval" : "waiting_children",
          );
          if (outcome.reason === "approval") await unit.updateRun(job.runId, { status: "waiting" });
        });
        // Parked with an interrupt asked for: no further step would see it, so this is the boundary.
        if ((await this.deps.store.runs.get(job.runId))?.interruptRequestedAt) {
          await this.cancel(job.runId, INTERRUPTED_AT_BOUNDARY);
        }
        return;
      case "completed":
        await this.finishAgent(job, "completed", outcome.report);
        return;
      case "exhausted":
        await this.finishAgent(job, "context_exhausted", outcome.reason);
        return;
      case "failed":
        await this.finishAgent(job, "failed", outcome.reason);
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
    const { store } = this.deps;
    const agent = await store.agents.get(job.agentId);
    if (!agent) return;
    if (agent.parentAgentId) {
      await this.setAgentStatus(
        job.threadId,
        job.agentId,
        job.runId,
        status,
        status === "completed" ? undefined : detail,
      );
      const finished = (await store.agents.get(job.agentId)) ?? agent;
      await this.coordinator.resumeParentIfDone(finished);
      await this.finishApiTeamRun(finished);
      return;
    }
    await endRootRun(this.deps, job, status, detail);
    await this.startNext(job.threadId);
  }

  /** Ends a manual compaction run: the turn is over until the next user message (I7). */
  async finishCompactionRun(job: StepJob, ok: boolean, detail: string): Promise<void> {
    await endCompactionRun(this.deps, job, ok, detail);
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

  /**
   * Stops a run at its next step boundary (multitask: interrupt): a step in flight — its model call,
   * its tool calls, a compaction it started — finishes, and the run is cancelled before the next step
   * begins (the step job's probe reads the request). A run whose root agent takes no step now (parked
   * on an approval or on its sub-agents, or waiting out a delay) is cancelled at once.
   */
  async interruptAtStepBoundary(runId: string): Promise<void> {
    const { store } = this.deps;
    const run = await store.runs.get(runId);
    if (!run || run.finishedAt) return;
    await commit(this.deps, async (unit, announce) => {
      await unit.updateRun(runId, { interruptRequestedAt: this.deps.now() });
      announce({
        threadId: run.threadId,
        agentId: run.agentId,
        runId,
        type: "run.interrupt_requested",
        data: { reason: "a new message: the run stops at its next step boundary" },
      });
    });
    // Read after the request is recorded: a step that parked meanwhile reads the request after its
    // own status change (afterStep), so one of the two sees the other.
    const root = await store.agents.get(run.agentId);
    if (run.status === "waiting" || (root && BETWEEN_STEPS.has(root.status))) {
      await this.cancel(runId, INTERRUPTED_AT_BOUNDARY);
    }
  }

  /** Cancels a run: its queued jobs are removed; running steps are aborted through the control channel. */
  async cancel(runId: string, reason = "cancelled by user"): Promise<Run> {
    const { store, scheduler } = this.deps;
    const run = await store.runs.get(runId);
    if (!run) throw new LongrunError("not_found", `run ${runId} not found`);
    if (run.finishedAt) return run;
    const cancelled = await recordCancel(this.deps, run, reason);
    if (cancelled) {
      await scheduler.cancelRun(runId);
      await this.startNext(run.threadId);
    }
    return (await store.runs.get(runId)) ?? run;
  }

  /**
   * Records a user's decision on a parked tool call and resumes the agent. Exactly one decision per
   * call wins, across every server instance: a second one is a conflict.
   */
  async resolveApproval(input: {
    agentId: string;
    callId: string;
    decision: "approve" | "deny";
    reason?: string;
    /** `thread`/`tenant`: also approve later matching calls; checked before the decision is taken. */
    rule?: { scope: ApprovalRuleScope; pattern?: string | undefined };
  }): Promise<{ rule: ApprovalRule | null }> {
    const { rule, ...decision } = input;
    const planned =
      rule && rule.scope !== "once"
        ? await planRuleFromDecision(this.deps, { ...decision, scope: rule.scope, pattern: rule.pattern })
        : null;
    await decideApproval(this.deps, decision);
    return { rule: planned ? await this.deps.store.approvalRules.create(planned) : null };
  }

  /**
   * A team spawned through the API: once every member ended, the run completes and the reports reach
   * the parent as one user-role fact (the parent made no tool call to answer).
   */
  async finishApiTeamRun(child: Agent): Promise<void> {
    if (await finishApiTeam(this.deps, this.coordinator, child)) await this.startNext(child.threadId);
  }

  /** Marks a run that cannot progress, with the reason, so it is visible instead of silent. */
  markStuck(run: Run, reason: string): Promise<void> {
    return markRunStuck(this.deps, run, reason);
  }

  /** A stuck run that moves again is running again. */
  markRunning(runId: string): Promise<void> {
    return markRunMoving(this.deps, runId);
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
    await commit(this.deps, (unit, announce) => threadStatusIn(unit, announce, threadId, status));
  }

  /** Persists an agent's status and announces it. */
  async setAgentStatus(
    threadId: string,
    agentId: string,
    runId: string,
    status: Agent["status"],
    reason?: string,
    until?: number,
  ) {
    await commit(this.deps, (unit, announce) =>
      agentStatusIn(unit, announce, { threadId, agentId, runId }, status, reason, until),
    );
  }
}

function waitReason(outcome: { until: number; reason: string }): string {
  return `${outcome.reason}: waiting until ${new Date(outcome.until).toISOString()}`;
}

function parseJson<T>(text: string | null): T | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    // A stored value that is not JSON reads as none.
    return null;
  }
}
