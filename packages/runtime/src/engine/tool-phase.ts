import type { StoredMessage, ToolCall } from "@longrun/protocol";
import { DEFAULT_OUTPUT_LIMIT, limitOutput } from "../tools/index.ts";
import type { AgentContext } from "./agent-context.ts";
import { appendFactIn } from "./append-fact.ts";
import { commit } from "./commit.ts";
import type { Coordinator } from "./coordinator.ts";
import type { RuntimeDeps } from "./runtime-deps.ts";

export type ToolPhaseResult = "done" | "parked_approval" | "parked_children";

interface Where {
  threadId: string;
  agentId: string;
  runId: string;
  fence: number;
}

const UNKNOWN_OUTCOME =
  "Cancelled: this tool call was interrupted (the worker stopped while it ran). It may or may not have taken effect; check before relying on it.";

/**
 * Runs the calls of `message` that have no result yet. Each call is recorded as started before it
 * runs; a call found started without a result is answered as cancelled, never re-run or guessed.
 */
export async function runToolPhase(
  deps: RuntimeDeps,
  coordinator: Coordinator,
  context: AgentContext,
  where: Where,
  message: StoredMessage,
  calls: ToolCall[],
  signal: AbortSignal,
): Promise<ToolPhaseResult> {
  let parked: ToolPhaseResult = "done";
  for (const call of calls) {
    if (signal.aborted) break;
    const name = call.function.name;
    if (name === "spawn_agents") {
      const spawned = await coordinator.spawnFromCall(context, where, message, call);
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
        await finishCall(deps, where, call, "error", deps.tools.denialResult(decision.reason ?? undefined));
        continue;
      }
    }
    const firstRun = await commit(deps, async (unit, announce) => {
      const started = await unit.startToolRun({ agentId: where.agentId, callId: call.id, name });
      if (started) {
        announce({
          threadId: where.threadId,
          agentId: where.agentId,
          runId: where.runId,
          type: "tool.started",
          data: { callId: call.id, name, arguments: call.function.arguments },
        });
      }
      return started;
    });
    if (!firstRun) {
      await finishCall(deps, where, call, "cancelled", UNKNOWN_OUTCOME);
      continue;
    }
    const result = await deps.tools.execute(
      { id: call.id, name, arguments: call.function.arguments },
      toolContext(deps, context, where, message),
      signal,
    );
    if (signal.aborted && result.status !== "ok") {
      await finishCall(
        deps,
        where,
        call,
        "cancelled",
        "Cancelled: the run was cancelled while this tool ran.",
      );
      break;
    }
    await finishCall(deps, where, call, result.status, limitOutput(result.output, outputLimitFor(context)));
  }
  return parked;
}

/**
 * A tool result may take at most ~15 % of the window (and 16,000 characters): one read must never be
 * larger than what a compaction can keep.
 */
export function outputLimitFor(context: Pick<AgentContext, "profile">): number {
  const window = context.profile.maxInputTokens;
  if (!window) return DEFAULT_OUTPUT_LIMIT;
  return Math.max(1_000, Math.min(DEFAULT_OUTPUT_LIMIT, Math.floor(window * 0.15 * 3.5)));
}

async function finishCall(
  deps: RuntimeDeps,
  where: Where,
  call: ToolCall,
  status: "ok" | "error" | "cancelled",
  output: string,
): Promise<void> {
  // The result, the run record and both events commit together: a crash leaves none or all.
  await commit(deps, async (unit, announce) => {
    await appendFactIn(unit, announce, where, {
      role: "tool",
      content: output,
      toolCallId: call.id,
      toolStatus: status,
      name: call.function.name,
    });
    await unit.finishToolRun(where.agentId, call.id);
    announce({
      threadId: where.threadId,
      agentId: where.agentId,
      runId: where.runId,
      type: "tool.completed",
      data: { callId: call.id, name: call.function.name, status, output: output.slice(0, 2_000) },
    });
  });
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
  const approval = await commit(deps, async (unit, announce) => {
    const { approval, created } = await unit.requestApproval({
      agentId: where.agentId,
      callId: call.id,
      threadId: where.threadId,
      messageId: message.id,
      toolName: call.function.name,
      arguments: call.function.arguments,
    });
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

function toolContext(deps: RuntimeDeps, context: AgentContext, where: Where, _message: StoredMessage) {
  return {
    workspaceDir: context.thread.workspaceDir,
    async recordRead(path: string) {
      const state = await deps.store.agentState.get(where.agentId);
      const recentFiles = [
        { path, readAt: deps.now() },
        ...state.recentFiles.filter((file) => file.path !== path),
      ].slice(0, 20);
      await deps.store.agentState.update(where.agentId, { recentFiles });
    },
    async setTodos(todos: { content: string; status: "pending" | "in_progress" | "completed" }[]) {
      await deps.store.agentState.update(where.agentId, { todos });
    },
    async setPlan(plan: string) {
      await deps.store.agentState.update(where.agentId, { plan });
    },
    async spawnAgents(): Promise<{ parked: true }> {
      // spawn_agents is routed to the coordinator before reaching the registry.
      return { parked: true };
    },
  };
}
