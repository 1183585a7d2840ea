import { readFile } from "node:fs/promises";
import {
  ApprovalBody,
  CompactBody,
  type ContextView,
  type HistoryView,
  LongrunError,
  SpawnBody,
} from "@longrun/protocol";
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

  app.post("/:id/approvals/:callId", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    const body = await readBody(context, ApprovalBody);
    await deps.runControl.resolveApproval({
      agentId: agent.id,
      callId: context.req.param("callId"),
      decision: body.decision,
      reason: body.reason,
    });
    return context.json({ ok: true as const });
  });

  app.post("/:id/compact", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    const body = await readBody(context, CompactBody);
    const run = await deps.runControl.admitCompaction(
      agent.id,
      body.strategy ? { strategy: body.strategy } : {},
    );
    deps.metrics.runs.inc({ kind: "compact" });
    return context.json({ runId: run.id, queued: run.status === "queued" }, 202);
  });

  app.post("/:id/spawn", async (context) => {
    const agent = await requireAgent(store, context.get("tenantId"), context.req.param("id"));
    const body = await readBody(context, SpawnBody);
    // Admitted like any run: behind an active run of the thread it waits its turn.
    const { run, agents } = await deps.runControl.admitSpawn(agent.id, body.agents);
    deps.metrics.runs.inc({ kind: "spawn" });
    return context.json({ runId: run.id, agents, queued: run.status === "queued" }, 201);
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

/** POST /v1/approvals/:callId — only when exactly one pending call of the caller's tenant has this id. */
export function approvalRoutes(deps: ServerDeps) {
  const app = new Hono<AuthEnv>();
  app.post("/:callId", async (context) => {
    const body = await readBody(context, ApprovalBody);
    const callId = context.req.param("callId");
    const agentId = await approvalTarget(deps, context.get("tenantId"), callId);
    await deps.runControl.resolveApproval({ agentId, callId, decision: body.decision, reason: body.reason });
    return context.json({ ok: true as const });
  });
  return app;
}

/**
 * The agent whose call is meant: the one named (checked against the tenant), or the only agent of the
 * tenant with that call pending. Errors never name another tenant's objects.
 */
export async function approvalTarget(
  deps: Pick<ServerDeps, "store">,
  tenantId: string,
  callId: string,
  agentId?: string,
): Promise<string> {
  if (agentId) return (await requireAgent(deps.store, tenantId, agentId)).id;
  const pending = await deps.store.approvals.forTenant(tenantId, { callId, pending: true, limit: 2 });
  if (pending.length === 0) {
    // Already decided: a second decision is a conflict (decided once), not an unknown call.
    const decided = await deps.store.approvals.forTenant(tenantId, { callId, limit: 2 });
    if (decided.length === 1) return (decided[0] as { agentId: string }).agentId;
    throw new LongrunError("not_found", `no pending approval for call ${callId}`);
  }
  if (pending.length > 1) {
    throw new LongrunError(
      "conflict",
      `call id ${callId} is pending in several agents: use POST /v1/agents/:agentId/approvals/${callId}`,
    );
  }
  return (pending[0] as { agentId: string }).agentId;
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
