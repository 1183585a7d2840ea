import {
  type Agent,
  LongrunError,
  SpawnAgentSpec,
  type StoredMessage,
  type ToolCall,
} from "@longrun/protocol";
import { z } from "zod";
import type { AgentContext } from "./agent-context.ts";
import { appendFact } from "./append-fact.ts";
import type { RuntimeDeps } from "./runtime-deps.ts";
import { DEFAULT_SYSTEM_PROMPT } from "./system-prompt.ts";

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
      const forkPoint = context.facts.filter((fact) => fact.seq < message.seq).at(-1) ?? null;
      await this.deps.store.agents.setStatus(where.agentId, "waiting_children");
      await this.emitStatus(where.threadId, where.agentId, where.runId, "waiting_children");
      for (const spec of parsed.data.agents) {
        await this.createChild(context.agent, where.runId, call.id, spec, {
          forkMessageId: forkPoint?.id ?? null,
          forkCompactionId: context.compaction?.id ?? null,
        });
      }
    } else {
      await this.resumeParentIfDone(existing[0]!);
    }
    return "parked";
  }

  /** Spawns a team from the API (`POST /v1/agents/:id/spawn`), not tied to a tool call. */
  async spawnFromApi(parentAgentId: string, runId: string, specs: SpawnAgentSpec[]): Promise<Agent[]> {
    const parent = await this.deps.store.agents.get(parentAgentId);
    if (!parent) throw new LongrunError("not_found", `agent ${parentAgentId} not found`);
    const last = await this.deps.store.messages.last(parentAgentId);
    const compaction = await this.deps.store.compactions.latest(parentAgentId);
    const children: Agent[] = [];
    for (const spec of specs) {
      children.push(
        await this.createChild(parent, runId, `api:${runId}`, spec, {
          forkMessageId: last?.id ?? null,
          forkCompactionId: compaction?.id ?? null,
        }),
      );
    }
    return children;
  }

  private async createChild(
    parent: Agent,
    runId: string,
    spawnCallId: string,
    spec: SpawnAgentSpec,
    fork: { forkMessageId: string | null; forkCompactionId: string | null },
  ): Promise<Agent> {
    const { store } = this.deps;
    const inherit = spec.inherit === "fork" && fork.forkMessageId ? "fork" : "fresh";
    const child = await store.agents.create({
      threadId: parent.threadId,
      parentAgentId: parent.id,
      name: spec.name,
      inherit,
      forkMessageId: inherit === "fork" ? fork.forkMessageId : null,
      forkCompactionId: inherit === "fork" ? fork.forkCompactionId : null,
      brief: spec.brief,
      spawnCallId,
    });
    if (inherit === "fresh") {
      await store.messages.append(child.id, { role: "system", content: DEFAULT_SYSTEM_PROMPT });
    }
    await store.messages.append(child.id, { role: "user", content: spec.brief });
    await this.deps.events.emit({
      threadId: parent.threadId,
      agentId: child.id,
      runId,
      type: "agent.spawned",
      data: { name: spec.name, parentAgentId: parent.id, inherit, brief: spec.brief },
    });
    await store.agents.setStatus(child.id, "queued");
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
    const lease = await this.deps.lease.acquire(`agent:${parent.id}`, 30_000);
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
            fence: lease.token,
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
    await store.agents.setStatus(parent.id, "queued");
    await this.deps.scheduler.step(
      { threadId: parent.threadId, agentId: parent.id, runId: await this.runOf(parent) },
      { jobId: `resume.${parent.id}.${child.spawnCallId}` },
    );
    return "resumed";
  }

  private async reportOf(agent: Agent): Promise<string> {
    const last = await this.deps.store.messages.last(agent.id);
    const text = last?.role === "assistant" && typeof last.content === "string" ? last.content : "";
    if (agent.status === "completed") return `## ${agent.name} (completed)\n${text || "(no report)"}`;
    return `## ${agent.name} (${agent.status})\nThe sub-agent did not complete: ${agent.status}.${text ? `\nLast output: ${text}` : ""}`;
  }

  private async runOf(agent: Agent): Promise<string> {
    const runs = await this.deps.store.runs.active(agent.threadId);
    return runs.find((run) => run.status !== "queued")?.id ?? runs[0]?.id ?? "none";
  }

  private async emitStatus(threadId: string, agentId: string, runId: string, status: Agent["status"]) {
    await this.deps.events.emit({ threadId, agentId, runId, type: "agent.status", data: { status } });
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
