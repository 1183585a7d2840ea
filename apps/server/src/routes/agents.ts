import { readFile } from "node:fs/promises";
import { ApprovalBody, CompactBody, type ContextView, type HistoryView, SpawnBody } from "@longrun/protocol";
import { historyFilePath, loadAgentContext, projectContext } from "@longrun/runtime";
import { Hono } from "hono";
import { type AuthEnv, requireAgent, requireThread } from "../auth.ts";
import type { ServerDeps } from "../server-deps.ts";
import { intQuery, readBody } from "../validate.ts";

/** Agents: facts, the projection the model would get now, manual compaction, teams, history. */
export function agentRoutes(deps: ServerDeps) {
  const { store } = deps;
  const app = new Hono<AuthEnv>();

  app.get("/:id/messages", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    const afterSeq = intQuery(context, "afterSeq", -1) ?? -1;
    const limit = Math.min(intQuery(context, "limit", 500) ?? 500, 5_000);
    const messages = await store.messages.list(agent.id, { afterSeq, limit });
    const last = messages.at(-1);
    return context.json({ messages, nextAfterSeq: messages.length === limit && last ? last.seq : null });
  });

  app.get("/:id/context", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    const agentContext = await loadAgentContext(deps.runtime, agent.id);
    const projection = projectContext(deps.runtime, agentContext);
    const view: ContextView = {
      agentId: agent.id,
      messages: projection.messages,
      marks: projection.marks,
      tokens: projection.tokens,
      rawTokens: projection.rawTokens,
      maxInputTokens: agentContext.profile.maxInputTokens ?? null,
      triggerTokens: projection.triggerTokens,
      saved: projection.saved,
      needsCompaction: projection.needsCompaction,
      compaction: agentContext.compaction,
      state: agentContext.state,
      ...(agent.inherit === "fork" ? { forkPrefix: agentContext.prefix } : {}),
    };
    return context.json(view);
  });

  app.post("/:id/compact", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    await readBody(context, CompactBody);
    const run = await deps.runControl.admitCompaction(agent.id);
    deps.metrics.runs.inc({ kind: "compact" });
    return context.json({ runId: run.id, queued: run.status === "queued" }, 202);
  });

  app.post("/:id/spawn", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    const body = await readBody(context, SpawnBody);
    const run = await store.runs.create({
      threadId: agent.threadId,
      agentId: agent.id,
      kind: "spawn",
      status: "running",
      input: null,
    });
    await store.runs.update(run.id, { startedAt: deps.runtime.now() });
    await deps.runtime.events.emit({
      threadId: agent.threadId,
      agentId: agent.id,
      runId: run.id,
      type: "run.started",
      data: { kind: "spawn" },
    });
    const agents = await deps.coordinator.spawnFromApi(agent.id, run.id, body.agents);
    deps.metrics.runs.inc({ kind: "spawn" });
    return context.json({ runId: run.id, agents }, 201);
  });

  app.get("/:id/history", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    const thread = await requireThread(store, context.get("tenantId"), agent.threadId);
    const file = historyFilePath(thread.workspaceDir, thread.id, agent.id);
    const text = await readFile(file, "utf8").catch(() => null);
    const view: HistoryView = {
      agentId: agent.id,
      file: text === null ? null : file,
      messages: (text ?? "")
        .split("\n")
        .filter((line) => line.trim().length > 0)
        .map((line) => JSON.parse(line) as unknown),
    };
    return context.json(view);
  });

  return app;
}

/** POST /v1/approvals/:callId */
export function approvalRoutes(deps: ServerDeps) {
  const app = new Hono<AuthEnv>();
  app.post("/:callId", async (context) => {
    const body = await readBody(context, ApprovalBody);
    const callId = context.req.param("callId");
    const agentId = await approvalOwner(deps, callId);
    if (agentId) await requireAgent(deps.store, context.get("tenantId"), agentId);
    await deps.runControl.resolveApproval({ callId, decision: body.decision, reason: body.reason });
    return context.json({ ok: true as const });
  });
  return app;
}

/** The agent a call id belongs to: pending its approval, or already run (a second decision conflicts). */
export async function approvalOwner(deps: Pick<ServerDeps, "store">, callId: string): Promise<string | null> {
  const pending = await deps.store.agentState.findByPendingCall(callId);
  return pending ?? (await deps.store.toolRuns.get(callId))?.agentId ?? null;
}

/** POST /v1/runs/:id/cancel — works from any server instance through the control channel. */
export function runRoutes(deps: ServerDeps) {
  const app = new Hono<AuthEnv>();
  app.post("/:id/cancel", async (context) => {
    const runId = context.req.param("id");
    const existing = await deps.store.runs.get(runId);
    if (existing) await requireThread(deps.store, context.get("tenantId"), existing.threadId);
    const run = await deps.runControl.cancel(runId);
    await deps.publishCancel(runId);
    return context.json({ run });
  });
  return app;
}
