import {
  type Agent,
  LongrunError,
  SpawnAgentSpec,
  type StoredMessage,
  type ToolCall,
} from "@longrun/protocol";
import { DEFAULT_LEASE_MS } from "@longrun/queue";
import { z } from "zod";
import type { AgentContext } from "../context/agent-context.ts";
import { DEFAULT_SYSTEM_PROMPT } from "../context/system-prompt.ts";
import { appendFact, withTokenCount } from "../events/append-fact.ts";
import { commit } from "../events/commit.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { type HeldAgentLease, holdAgentLease } from "./agent-lease.ts";

// Models often say `inherit: true` for "fork" (the scripted team does): accept a boolean as well.
const SpawnArguments = z.object({
  agents: z
    .array(
      z.preprocess((value) => {
        if (typeof value !== "object" || value === null || !("inherit" in value)) return value;
        const { inherit } = value as { inherit: unknown };
        return typeof inherit === "boolean" ? { ...value, inherit: inherit ? "fork" : "fresh" } : value;
      }, SpawnAgentSpec),
    )
    .min(1)
    .max(16),
});
const TERMINAL = new Set(["completed", "failed", "cancelled", "context_exhausted"]);

/** Creates sub-agent teams, parks their parent, and resumes it with the children's reports. */
export class Coordinator {
  constructor(private readonly deps: RuntimeDeps) {}

  /** Handles a `spawn_agents` tool call. Idempotent: children already created for the call are reused. */
  async spawnFromCall(
    context: AgentContext,
    where: { threadId: string; agentId: string; runId: string; fence: number },
    message: StoredMessage,
    call: ToolCall,
  ): Promise<"parked" | "done"> {
    if (context.agent.parentAgentId) {
      // Sub-agents are not offered spawn_agents (a team is one level deep); a call anyway is an error.
      await appendFact(this.deps, where, {
        role: "tool",
        content: "Error: sub-agents cannot spawn sub-agents; do the work yourself and report.",
        toolCallId: call.id,
        toolStatus: "error",
        name: call.function.name,
      });
      return "done";
    }
    const parsed = SpawnArguments.safeParse(safeJson(call.function.arguments));
    if (!parsed.success) {
      await appendFact(this.deps, where, {
        role: "tool",
        content: `Error: invalid spawn_agents arguments: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`,
        toolCallId: call.id,
        toolStatus: "error",
        name: call.function.name,
      });
      return "done";
    }
    const existing = (await this.deps.store.agents.children(where.agentId)).filter(
      (child) => child.spawnCallId === call.id,
    );
    if (existing.length === 0) {
      await commit(this.deps, async (unit, announce) => {
        await unit.setAgentStatus(where.agentId, "waiting_children");
        announce({
          threadId: where.threadId,
          agentId: where.agentId,
          runId: where.runId,
          type: "agent.status",
          data: { status: "waiting_children" },
        });
      });
    }
    // A retried step (a crash mid-spawn) creates only the members still missing.
    const forkPoint = context.facts.filter((fact) => fact.seq < message.seq).at(-1) ?? null;
    for (const spec of parsed.data.agents.slice(existing.length)) {
      await this.createChild(context.agent, where.runId, call.id, spec, {
        forkMessageId: forkPoint?.id ?? null,
        forkCompactionId: context.compaction?.id ?? null,
      });
    }
    if (existing.length > 0) await this.resumeParentIfDone(existing[0]!);
    return "parked";
  }

  /**
   * Spawns a team from the API (`POST /v1/agents/:id/spawn`), not tied to a tool call. Idempotent: a
   * run whose children already exist (a restart mid-spawn) only creates the missing ones.
   */
  async spawnFromApi(parentAgentId: string, runId: string, specs: SpawnAgentSpec[]): Promise<Agent[]> {
    const parent = await this.deps.store.agents.get(parentAgentId);
    if (!parent) throw new LongrunError("not_found", `agent ${parentAgentId} not found`);
    const spawnCallId = `api:${runId}`;
    const existing = (await this.deps.store.agents.children(parentAgentId)).filter(
      (child) => child.spawnCallId === spawnCallId,
    );
    const last = await this.deps.store.messages.last(parentAgentId);
    const compaction = await this.deps.store.compactions.latest(parentAgentId);
    const children: Agent[] = [...existing];
    for (const spec of specs.slice(existing.length)) {
      children.push(
        await this.createChild(parent, runId, spawnCallId, spec, {
          forkMessageId: last?.id ?? null,
          forkCompactionId: compaction?.id ?? null,
        }),
      );
    }
    return children;
  }

  /** An agent's lease with a fence above everything the log has seen (see holdAgentLease). */
  holdAgentLease(agentId: string, ttlMs = DEFAULT_LEASE_MS): Promise<HeldAgentLease | null> {
    return holdAgentLease(this.deps, agentId, { ttlMs });
  }

  private async createChild(
    parent: Agent,
    runId: string,
    spawnCallId: string,
    spec: SpawnAgentSpec,
    fork: { forkMessageId: string | null; forkCompactionId: string | null },
  ): Promise<Agent> {
    const inherit = spec.inherit === "fork" && fork.forkMessageId ? "fork" : "fresh";
    const brief = await withTokenCount(this.deps, { role: "user", content: spec.brief });
    // The child, its first facts and its announcement commit together: a crash never leaves a child
    // without its brief.
    const child = await commit(this.deps, async (unit, announce) => {
      const created = await unit.createAgent({
        threadId: parent.threadId,
        parentAgentId: parent.id,
        name: spec.name,
        inherit,
        forkMessageId: inherit === "fork" ? fork.forkMessageId : null,
        forkCompactionId: inherit === "fork" ? fork.forkCompactionId : null,
        brief: spec.brief,
        spawnCallId,
        status: "queued",
      });
      const facts = [
        ...(inherit === "fresh" ? [{ role: "system" as const, content: DEFAULT_SYSTEM_PROMPT }] : []),
        brief,
      ];
      await unit.appendMessages(created.id, facts);
      announce({
        threadId: parent.threadId,
        agentId: created.id,
        runId,
        type: "agent.spawned",
        data: { name: spec.name, parentAgentId: parent.id, inherit, brief: spec.brief, spawnCallId },
      });
      return created;
    });
    await this.deps.scheduler.step({ threadId: parent.threadId, agentId: child.id, runId });
    return child;
  }

  /**
   * Called when a sub-agent reaches a terminal state. When its whole team is done, the parent gets one
   * tool result holding every child's report (failures included) and is scheduled again.
   */
  async resumeParentIfDone(child: Agent): Promise<"resumed" | "waiting" | "none"> {
    const { store } = this.deps;
    if (!child.parentAgentId || !child.spawnCallId) return "none";
    const siblings = (await store.agents.children(child.parentAgentId)).filter(
      (agent) => agent.spawnCallId === child.spawnCallId,
    );
    if (!siblings.every((agent) => TERMINAL.has(agent.status))) return "waiting";
    if (child.spawnCallId.startsWith("api:")) return "resumed";
    const parent = await store.agents.get(child.parentAgentId);
    if (!parent) return "none";
    const lease = await this.holdAgentLease(parent.id);
    if (!lease) {
      // The parent is busy in another step; it will see the finished team when that step reruns.
      await this.deps.scheduler.step(
        { threadId: parent.threadId, agentId: parent.id, runId: await this.runOf(parent) },
        { delayMs: 500 },
      );
      return "waiting";
    }
    try {
      const already = await store.messages.findByToolCallId(parent.id, child.spawnCallId);
      if (!already) {
        const reports = await Promise.all(siblings.map((agent) => this.reportOf(agent)));
        const anyFailed = siblings.some((agent) => agent.status !== "completed");
        await appendFact(
          this.deps,
          {
            threadId: parent.threadId,
            agentId: parent.id,
            runId: await this.runOf(parent),
            fence: lease.fence,
          },
          {
            role: "tool",
            content: reports.join("\n\n"),
            toolCallId: child.spawnCallId,
            toolStatus: anyFailed ? "error" : "ok",
            name: "spawn_agents",
          },
        );
      }
    } finally {
      await lease.release();
    }
    const runId = await this.runOf(parent);
    await commit(this.deps, async (unit, announce) => {
      await unit.setAgentStatus(parent.id, "queued");
      announce({
        threadId: parent.threadId,
        agentId: parent.id,
        runId,
        type: "agent.status",
        data: { status: "queued" },
      });
    });
    // No fixed job id: BullMQ keeps finished jobs' ids, and a resume must never be dropped as a
    // duplicate of an earlier one. A duplicate step is harmless (the log says what is left to do).
    await this.deps.scheduler.step({ threadId: parent.threadId, agentId: parent.id, runId });
    return "resumed";
  }

  /** One team member's report as its parent reads it (failures included). */
  async reportOf(agent: Agent): Promise<string> {
    const last = await this.deps.store.messages.last(agent.id);
    const text = last?.role === "assistant" && typeof last.content === "string" ? last.content : "";
    if (agent.status === "completed") return `## ${agent.name} (completed)\n${text || "(no report)"}`;
    return `## ${agent.name} (${agent.status})\nThe sub-agent did not complete: ${agent.status}.${text ? `\nLast output: ${text}` : ""}`;
  }

  private async runOf(agent: Agent): Promise<string> {
    const runs = await this.deps.store.runs.active(agent.threadId);
    return runs.find((run) => run.status !== "queued")?.id ?? runs[0]?.id ?? "none";
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Arguments that are not JSON read as none.
    return undefined;
  }
}
