import { type Agent, errorFields, type Logger, type Run } from "@longrun/protocol";
import type { RunRecord } from "@longrun/store";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { pendingToolCalls } from "../step/pending-calls.ts";
import { agentLeaseKey } from "./agent-lease.ts";
import type { Coordinator } from "./coordinator.ts";
import type { RunControl } from "./run-control.ts";

export interface ReconcilerOptions {
  /**
   * A thread whose last event is older than this, with no job and no lease for its run's agents, is
   * recovered. Longer than a lease, so a live worker is never second-guessed. Default 60 s.
   */
  staleAfterMs?: number;
  /** Recoveries of one agent at one log position before its run is marked stuck. Default 3. */
  maxRecoveries?: number;
}

/** What one pass did, for logs and tests. */
export interface ReconcileReport {
  activeRuns: number;
  /** Jobs issued again: agent steps, compactions, run starts. */
  recovered: Array<{ runId: string; agentId: string; action: string }>;
  stuck: Array<{ runId: string; reason: string }>;
}

const EXPECTS_JOB = new Set<Agent["status"]>(["queued", "running", "compacting", "waiting"]);
const TERMINAL = new Set<Agent["status"]>(["completed", "failed", "cancelled", "context_exhausted"]);

/**
 * Recovery from the durable log: finds runs that are admitted or running but that nothing moves —
 * no job queued or running for their agents, no lease held, no event for a while — and issues their
 * next job again. Safe to run anywhere, any number of times: every job is idempotent (a step reads
 * what is left to do from the log; a duplicate is dropped as stale or finds nothing to do).
 */
export function createReconciler(
  deps: RuntimeDeps,
  runControl: RunControl,
  coordinator: Coordinator,
  options: ReconcilerOptions = {},
) {
  const staleAfterMs = options.staleAfterMs ?? 60_000;
  const maxRecoveries = options.maxRecoveries ?? 3;
  /** Recoveries per agent and log position: the same position recovered again and again is stuck. */
  const recoveries = new Map<string, number>();

  /**
   * One pass. `immediate`: every job is known to be gone (an embedded start, a Redis that came back
   * empty), so there is nothing to wait for.
   */
  async function pass(mode: { immediate?: boolean } = {}): Promise<ReconcileReport> {
    const report: ReconcileReport = { activeRuns: 0, recovered: [], stuck: [] };
    const active = await deps.store.runs.listActive();
    report.activeRuns = active.length;
    if (active.length === 0) {
      recoveries.clear();
      return report;
    }
    const live = await deps.scheduler.liveAgents();
    const byThread = new Map<string, RunRecord[]>();
    for (const run of active) byThread.set(run.threadId, [...(byThread.get(run.threadId) ?? []), run]);
    const seen = new Set<string>();
    for (const [threadId, runs] of byThread) {
      const current = runs.find((run) => run.status !== "queued");
      if (!mode.immediate && !(await quiet(threadId))) continue;
      if (!current) {
        // Queued runs and none active: the run before them ended without starting the next.
        await runControl.startNext(threadId);
        const first = runs[0] as Run;
        report.recovered.push({ runId: first.id, agentId: first.agentId, action: "start queued run" });
        continue;
      }
      await reconcileRun(current, live, report, seen);
    }
    for (const key of [...recoveries.keys()]) if (!seen.has(key)) recoveries.delete(key);
    return report;
  }

  /** True when the thread has had no event for `staleAfterMs` (nothing is visibly moving it). */
  async function quiet(threadId: string): Promise<boolean> {
    const lastAt = await deps.store.events.lastAt(threadId);
    return lastAt === null || deps.now() - lastAt >= staleAfterMs;
  }

  async function busy(agentId: string, live: Set<string>): Promise<boolean> {
    return live.has(agentId) || (await deps.lease.isHeld(agentLeaseKey(agentId)));
  }

  async function reconcileRun(run: RunRecord, live: Set<string>, report: ReconcileReport, seen: Set<string>) {
    const agents = await deps.store.agents.listByThread(run.threadId);
    const recover = async (agent: Agent, action: string, issue: () => Promise<unknown>) => {
      const last = await deps.store.messages.last(agent.id);
      const key = `${agent.id}:${last?.seq ?? -1}`;
      seen.add(key);
      const count = (recoveries.get(key) ?? 0) + 1;
      recoveries.set(key, count);
      if (count > maxRecoveries) {
        const reason = `no progress after ${maxRecoveries} recoveries: agent ${agent.name} (${agent.id}) is ${agent.status} at message ${last?.seq ?? -1} with no job or lease`;
        await runControl.markStuck(run, reason);
        report.stuck.push({ runId: run.id, reason });
        return;
      }
      await issue();
      report.recovered.push({ runId: run.id, agentId: agent.id, action });
    };
    const step = (agent: Agent) =>
      deps.scheduler.step({ threadId: run.threadId, agentId: agent.id, runId: run.id });
    let acted = false;
    for (const agent of agents) {
      if (TERMINAL.has(agent.status) || (await busy(agent.id, live))) continue;
      if (EXPECTS_JOB.has(agent.status)) {
        acted = true;
        if (run.kind === "compact" && agent.id === run.agentId && agent.status === "compacting") {
          await recover(agent, "compaction", () => runControl.scheduleRunStart(run));
        } else {
          await recover(agent, "step", () => step(agent));
        }
      } else if (agent.status === "waiting_approval") {
        if (await hasDecisionToApply(agent)) {
          acted = true;
          await recover(agent, "step after decision", () => step(agent));
        }
      } else if (agent.status === "waiting_children") {
        const team = agents.filter((child) => child.parentAgentId === agent.id);
        const pending = pendingToolCalls(await deps.store.messages.list(agent.id, { afterSeq: -1 }));
        const spawnCall = pending?.calls.find((call) => call.function.name === "spawn_agents");
        const members = team.filter((child) => child.spawnCallId === spawnCall?.id);
        if (members.length > 0 && members.every((child) => TERMINAL.has(child.status))) {
          acted = true;
          await recover(agent, "resume parent", async () => {
            await coordinator.resumeParentIfDone(members[0] as Agent);
          });
        } else if (spawnCall && members.length === 0) {
          acted = true;
          await recover(agent, "step (spawn)", () => step(agent));
        }
      }
    }
    if (acted || run.kind !== "spawn") return;
    // A team spawned through the API: start it again if its members are missing, or finish it.
    const team = agents.filter((agent) => agent.spawnCallId === `api:${run.id}`);
    const owner = agents.find((agent) => agent.id === run.agentId) as Agent;
    if (team.length === 0) await recover(owner, "spawn team", () => runControl.scheduleRunStart(run));
    else if (team.every((agent) => TERMINAL.has(agent.status))) {
      await recover(owner, "finish team run", () => runControl.finishApiTeamRun(team[0] as Agent));
    }
  }

  async function hasDecisionToApply(agent: Agent): Promise<boolean> {
    const approvals = await deps.store.approvals.listByThread(agent.threadId);
    const decided = approvals.filter((approval) => approval.agentId === agent.id && approval.decision);
    if (decided.length === 0) return false;
    const pending = pendingToolCalls(await deps.store.messages.list(agent.id, { afterSeq: -1 }));
    return decided.some((approval) => pending?.calls.some((call) => call.id === approval.callId));
  }

  return { pass };
}

export type Reconciler = ReturnType<typeof createReconciler>;

/** One line per job the pass issued again and per run it marked stuck; nothing for a quiet pass. */
function logReport(log: Logger, report: ReconcileReport): void {
  for (const { runId, agentId, action } of report.recovered) {
    log.warn({ runId, agentId, action }, "reconciler issued a job again: nothing was moving the run");
  }
  for (const { runId, reason } of report.stuck) log.error({ runId, reason }, "reconciler marked a run stuck");
}

/** The periodic maintenance loop: reconcile, and apply event retention. */
export interface MaintenanceOptions extends ReconcilerOptions {
  intervalMs?: number;
  /** Event retention (off when neither is set). */
  retention?: { maxAgeMs?: number; keepPerThread?: number };
  /** True when every queued job was lost since the last call (a Redis that came back empty). */
  jobsLost?: () => Promise<boolean>;
  /** Only one instance reconciles at a time (a lease on a shared store). */
  exclusive?: boolean;
  onReport?: (report: ReconcileReport) => void;
  onError?: (error: unknown) => void;
}

/** Starts the reconciler: one immediate pass, then every `intervalMs` (default 15 s). */
export function startMaintenance(
  deps: RuntimeDeps,
  runControl: RunControl,
  coordinator: Coordinator,
  options: MaintenanceOptions & { immediateFirstPass?: boolean } = {},
): { stop(): Promise<void>; runOnce(mode?: { immediate?: boolean }): Promise<ReconcileReport | null> } {
  const reconciler = createReconciler(deps, runControl, coordinator, options);
  const intervalMs = options.intervalMs ?? 15_000;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const runOnce = async (mode: { immediate?: boolean } = {}): Promise<ReconcileReport | null> => {
    const lease = options.exclusive
      ? await deps.lease.acquire("maintenance", Math.max(intervalMs, 30_000))
      : { release: async () => undefined };
    if (!lease) return null;
    try {
      const lost = (await options.jobsLost?.()) ?? false;
      const report = await reconciler.pass({ immediate: mode.immediate === true || lost });
      if (
        options.retention &&
        (options.retention.maxAgeMs !== undefined || options.retention.keepPerThread !== undefined)
      ) {
        await deps.store.events.pruneRetention(options.retention);
      }
      options.onReport?.(report);
      return report;
    } finally {
      await lease.release();
    }
  };
  const log = deps.log.child({ component: "reconciler" });
  // One line when passes start failing and one when they succeed again, not one per tick.
  let failing = false;
  const tick = (mode: { immediate?: boolean } = {}): Promise<ReconcileReport | null> => {
    const result = running.then(() => (stopped ? null : runOnce(mode)));
    running = result.then(
      (report) => {
        if (report) logReport(log, report);
        if (failing && report) log.info({ reconciler: "ok" }, "reconciler passes succeed again");
        if (report) failing = false;
      },
      (error: unknown) => {
        if (!failing) log.error({ ...errorFields(error), reconciler: "failing" }, "reconciler pass failed");
        failing = true;
        options.onError?.(error);
      },
    );
    return result;
  };
  // The chain above logs a failed pass (once per outage); these copies of the promise are dropped.
  tick({ immediate: options.immediateFirstPass === true }).catch(() => undefined);
  const timer = setInterval(() => {
    // Logged by the chain above.
    tick().catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    runOnce: (mode) => tick(mode),
  };
}
