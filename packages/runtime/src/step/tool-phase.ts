import type { AgentState, StoredMessage, TodoItem, ToolCall } from "@longrun/protocol";
import type { FileChange, UnitOfWork } from "@longrun/store";
import type { AgentContext } from "../context/agent-context.ts";
import { type AgentSession, recordFact } from "../context/agent-session.ts";
import { appendFactIn, withTokenCount } from "../events/append-fact.ts";
import { type Announce, commit } from "../events/commit.ts";
import { approveByRule, matchingRule } from "../runs/approval-rules.ts";
import type { Coordinator } from "../runs/coordinator.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { fileChange, recordChangesIn } from "../snapshots/record-changes.ts";
import { limitOutput, outputLimitFor } from "../tools/index.ts";

export type ToolPhaseResult = "done" | "parked_approval" | "parked_children";

interface Where {
  threadId: string;
  agentId: string;
  runId: string;
  fence: number;
}

/** Calls recorded as started in an earlier transaction of this step: id → first run (not a retry). */
export type StartedCalls = Map<string, boolean>;

const UNKNOWN_OUTCOME =
  "Cancelled: this tool call was interrupted (the worker stopped while it ran). It may or may not have taken effect; check before relying on it.";

/** A call the engine runs itself with nothing to wait for (no team to spawn, no decision to ask). */
export function runsDirectly(deps: Pick<RuntimeDeps, "tools">, call: ToolCall): boolean {
  return call.function.name !== "spawn_agents" && !deps.tools.needsApproval(call.function.name);
}

/**
 * Records a call as started (and announces it) inside the caller's transaction; false when an
 * earlier, interrupted attempt had already started it.
 */
export async function startCallIn(
  unit: UnitOfWork,
  announce: Announce,
  where: Where,
  call: ToolCall,
): Promise<boolean> {
  const started = await unit.startToolRun({
    agentId: where.agentId,
    callId: call.id,
    name: call.function.name,
  });
  if (started) {
    announce({
      threadId: where.threadId,
      agentId: where.agentId,
      runId: where.runId,
      type: "tool.started",
      data: { callId: call.id, name: call.function.name, arguments: call.function.arguments },
    });
  }
  return started;
}

/** What a call changed in the agent's working state; written with the call's result. */
interface StateEffects {
  recentFiles?: AgentState["recentFiles"];
  /** Files the call changed: snapshotted with its result (snapshots/record-changes.ts). */
  files?: FileChange[];
  todos?: TodoItem[];
  plan?: string;
}

/**
 * Runs the calls of `message` that have no result yet. Each call is recorded as started before it
 * runs; a call found started without a result is answered as cancelled, never re-run or guessed.
 * One transaction per call: its result, its run record, the working state it changed, the events,
 * and the start of the next call.
 */
export async function runToolPhase(
  deps: RuntimeDeps,
  coordinator: Coordinator,
  session: AgentSession & { stale?: boolean },
  where: Where,
  message: StoredMessage,
  calls: ToolCall[],
  signal: AbortSignal,
  started: StartedCalls = new Map(),
): Promise<ToolPhaseResult> {
  let parked: ToolPhaseResult = "done";
  for (const [index, call] of calls.entries()) {
    if (signal.aborted) break;
    const name = call.function.name;
    const next = calls[index + 1];
    const startNext = next && runsDirectly(deps, next) && !started.has(next.id) ? next : undefined;
    if (name === "spawn_agents") {
      const spawned = await coordinator.spawnFromCall(session.context, where, message, call);
      // The coordinator wrote its own facts: this session no longer mirrors the log.
      session.stale = true;
      if (spawned === "parked") parked = "parked_children";
      continue;
    }
    if (deps.tools.needsApproval(name)) {
      const decision = await approvalDecision(deps, where, message, call);
      if (decision === "pending") {
        parked = parked === "done" ? "parked_approval" : parked;
        continue;
      }
      if (decision.decision === "deny") {
        await finishCall(
          deps,
          session,
          where,
          call,
          "error",
          deps.tools.denialResult(decision.reason ?? undefined),
          {
            startNext,
            started,
          },
        );
        continue;
      }
    }
    let firstRun = started.get(call.id);
    if (firstRun === undefined) {
      firstRun = await commit(deps, (unit, announce) => startCallIn(unit, announce, where, call));
    }
    if (!firstRun) {
      await finishCall(deps, session, where, call, "cancelled", UNKNOWN_OUTCOME, { startNext, started });
      continue;
    }
    const effects: StateEffects = {};
    const result = await deps.tools.execute(
      { id: call.id, name, arguments: call.function.arguments },
      toolContext(session.context, effects, deps),
      signal,
    );
    if (signal.aborted && result.status !== "ok") {
      await finishCall(
        deps,
        session,
        where,
        call,
        "cancelled",
        "Cancelled: the run was cancelled while this tool ran.",
        {
          effects,
          started,
        },
      );
      break;
    }
    await finishCall(
      deps,
      session,
      where,
      call,
      result.status,
      limitOutput(result.output, outputLimitFor(session.context.profile)),
      {
        effects,
        startNext,
        started,
      },
    );
  }
  return parked;
}

/**
 * One transaction: the call's result, its run record, the working state it changed, both events,
 * and (when given) the start of the next call. A crash leaves all of it or none.
 */
async function finishCall(
  deps: RuntimeDeps,
  session: AgentSession,
  where: Where,
  call: ToolCall,
  status: "ok" | "error" | "cancelled",
  output: string,
  options: { effects?: StateEffects; startNext?: ToolCall | undefined; started: StartedCalls },
): Promise<void> {
  const effects = options.effects ?? {};
  const changed =
    effects.recentFiles !== undefined || effects.todos !== undefined || effects.plan !== undefined;
  const state = session.context.state;
  const nextState = {
    agentId: where.agentId,
    plan: effects.plan ?? state.plan,
    todos: effects.todos ?? state.todos,
    recentFiles: effects.recentFiles ?? state.recentFiles,
  };
  // Counted before the transaction, a long output off the event loop (see withTokenCount).
  const result = await withTokenCount(deps, {
    role: "tool",
    content: output,
    toolCallId: call.id,
    toolStatus: status,
    name: call.function.name,
  });
  const { fact, updatedAt } = await commit(deps, async (unit, announce) => {
    const fact = await appendFactIn(unit, announce, where, result);
    const updatedAt = changed ? await unit.writeAgentState(nextState) : null;
    if (effects.files)
      await recordChangesIn(unit, session.context.thread, where.agentId, fact, effects.files);
    announce({
      threadId: where.threadId,
      agentId: where.agentId,
      runId: where.runId,
      type: "tool.completed",
      data: { callId: call.id, name: call.function.name, status, output: output.slice(0, 2_000) },
    });
    if (options.startNext) {
      options.started.set(options.startNext.id, await startCallIn(unit, announce, where, options.startNext));
    }
    return { fact, updatedAt };
  });
  recordFact(session, fact);
  if (updatedAt !== null) {
    session.context = { ...session.context, state: { ...state, ...nextState, updatedAt } };
    session.stateUpdatedAt = updatedAt;
  }
}

/**
 * The user's decision on a call that needs approval, or "pending" after requesting it. The decision
 * is kept after use: a step retried after a crash finds the same decision (and the call's started
 * record), never asks twice.
 */
async function approvalDecision(
  deps: RuntimeDeps,
  where: Where,
  message: StoredMessage,
  call: ToolCall,
): Promise<"pending" | { decision: "approve" | "deny"; reason: string | null }> {
  // An "always" rule of the thread or tenant decides a new request itself (issue 37).
  const rule = await matchingRule(deps, where.threadId, call);
  const approval = await commit(deps, async (unit, announce) => {
    const { approval, created } = await unit.requestApproval({
      agentId: where.agentId,
      callId: call.id,
      threadId: where.threadId,
      messageId: message.id,
      toolName: call.function.name,
      arguments: call.function.arguments,
    });
    if (created && rule) return approveByRule(unit, announce, where, call, rule);
    if (created) {
      announce({
        threadId: where.threadId,
        agentId: where.agentId,
        runId: where.runId,
        type: "approval.requested",
        data: { callId: call.id, name: call.function.name, arguments: call.function.arguments },
      });
    }
    return approval;
  });
  return approval.decision === null ? "pending" : { decision: approval.decision, reason: approval.reason };
}

/** What a tool may change besides its result: collected here, written with the result. */
function toolContext(
  context: AgentContext,
  effects: StateEffects,
  { now, snapshotMaxBytes }: Pick<RuntimeDeps, "now" | "snapshotMaxBytes">,
) {
  return {
    workspaceDir: context.thread.workspaceDir,
    async recordRead(path: string) {
      const current = effects.recentFiles ?? context.state.recentFiles;
      effects.recentFiles = [{ path, readAt: now() }, ...current.filter((file) => file.path !== path)].slice(
        0,
        20,
      );
    },
    recordChange(path: string, before: Uint8Array | null | undefined, after: Uint8Array | null) {
      effects.files = [...(effects.files ?? []), fileChange(path, before, after, snapshotMaxBytes)];
    },
    async setTodos(todos: TodoItem[]) {
      effects.todos = todos;
    },
    async setPlan(plan: string) {
      effects.plan = plan;
    },
    async spawnAgents(): Promise<{ parked: true }> {
      // spawn_agents is routed to the coordinator before reaching the registry.
      return { parked: true };
    },
  };
}
