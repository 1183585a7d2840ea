import { createRoute } from "@hono/zod-openapi";
import {
  ApprovalBody,
  ApprovalResult,
  CompactBody,
  CompactionList,
  CompactionListQuery,
  CompactResult,
  ContextView,
  HistoryQuery,
  HistoryView,
  Id,
  MessagesPage,
  MessagesQuery,
  PAGE_LIMITS,
  SpawnBody,
  SpawnResult,
} from "@longrun/protocol";
import { contextParts, historyFilePath, loadAgentContext, projectContext } from "@longrun/runtime";
import { z } from "zod";
import { requireAgent, requireThread } from "../auth.ts";
import {
  AUTH_ERRORS,
  BEARER,
  BODY_ERRORS,
  createRouter,
  errors,
  json,
  jsonBody,
  jsonResponse,
} from "../contract.ts";
import { checkMessageSize } from "../message-size.ts";
import { readBoundedPage } from "../paging.ts";
import type { ServerDeps } from "../server-deps.ts";
import { compactionCoverage } from "./compaction-coverage.ts";
import { readHistoryPage } from "./history-page.ts";

const AgentParams = z.object({ id: Id });
const ApprovalParams = z.object({ id: Id, callId: Id });
const tags = ["agents"];
const NO_AGENT = "no such agent in your tenant";

const listMessages = createRoute({
  method: "get",
  path: "/{id}/messages",
  operationId: "listAgentMessages",
  summary: "A page of an agent's facts (its append-only messages) after `afterSeq`",
  tags,
  security: BEARER,
  request: { params: AgentParams, query: MessagesQuery },
  responses: {
    200: jsonResponse(
      "Up to `limit` facts (default 500) and at most ~4 MiB; `nextAfterSeq` continues",
      MessagesPage,
    ),
    ...errors({
      ...AUTH_ERRORS,
      400: "a query parameter is not an integer or out of its bounds",
      404: NO_AGENT,
    }),
  },
});

const getContext = createRoute({
  method: "get",
  path: "/{id}/context",
  operationId: "getAgentContext",
  summary: "The projection the model would get now, with token figures",
  tags,
  security: BEARER,
  request: { params: AgentParams },
  responses: {
    200: jsonResponse("The projection", ContextView),
    ...errors({ ...AUTH_ERRORS, 400: "the id is malformed", 404: NO_AGENT }),
  },
});

const compact = createRoute({
  method: "post",
  path: "/{id}/compact",
  operationId: "compactAgent",
  summary: "Manual compaction: its own turn, no continuation",
  tags,
  security: BEARER,
  request: { params: AgentParams, body: { required: false, content: json(CompactBody) } },
  responses: {
    202: jsonResponse("The compaction run", CompactResult),
    ...errors({ ...AUTH_ERRORS, ...BODY_ERRORS, 404: NO_AGENT }),
  },
});

const listCompactions = createRoute({
  method: "get",
  path: "/{id}/compactions",
  operationId: "listAgentCompactions",
  summary:
    "Every compaction of the agent (or those after the first `offset`), oldest first, with its summary, ledger and restored items",
  tags,
  security: BEARER,
  request: { params: AgentParams, query: CompactionListQuery },
  responses: {
    200: jsonResponse("The compactions", CompactionList),
    ...errors({
      ...AUTH_ERRORS,
      400: "the id is malformed, or `offset` is not an integer ≥ 0",
      404: NO_AGENT,
    }),
  },
});

const spawn = createRoute({
  method: "post",
  path: "/{id}/spawn",
  operationId: "spawnAgents",
  summary: "Spawn a team of sub-agents under this agent",
  tags,
  security: BEARER,
  request: { params: AgentParams, body: jsonBody(SpawnBody) },
  responses: {
    201: jsonResponse("The spawn run and the new agents", SpawnResult),
    ...errors({
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      404: NO_AGENT,
      413: `${BODY_ERRORS[413]}, or a brief is over LONGRUN_MAX_MESSAGE_CHARS`,
    }),
  },
});

const history = createRoute({
  method: "get",
  path: "/{id}/history",
  operationId: "getAgentHistory",
  summary: "Compacted source messages offloaded to the agent's history file, a page of lines",
  tags,
  security: BEARER,
  request: { params: AgentParams, query: HistoryQuery },
  responses: {
    200: jsonResponse(
      "Up to `limit` lines (default 200) and at most ~4 MiB; `nextOffset` continues",
      HistoryView,
    ),
    ...errors({
      ...AUTH_ERRORS,
      400: "a query parameter is not an integer or out of its bounds",
      404: NO_AGENT,
    }),
  },
});

const resolveApproval = createRoute({
  method: "post",
  path: "/{id}/approvals/{callId}",
  operationId: "resolveApproval",
  summary: "Approve or deny one of the agent's parked tool calls (decided once)",
  tags: ["approvals"],
  security: BEARER,
  request: { params: ApprovalParams, body: jsonBody(ApprovalBody) },
  responses: {
    200: jsonResponse("The decision is recorded and the agent resumes", ApprovalResult),
    ...errors({
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      400: `${BODY_ERRORS[400]}; a rule with a denial, or a rule without a pattern for a call with no command or path`,
      404: "no such agent in your tenant, or no pending approval of that call for the agent",
      409: "the call was already decided",
    }),
  },
});

/** Agents: facts, the projection the model would get now, manual compaction, teams, history, approvals. */
export function agentRoutes(deps: ServerDeps) {
  const { store } = deps;
  const app = createRouter();

  app.openapi(listMessages, async (context) => {
    const { id } = context.req.valid("param");
    const agent = await requireAgent(store, context.get("tenantId"), id);
    const { afterSeq = -1, limit = PAGE_LIMITS.messages.default } = context.req.valid("query");
    const page = await readBoundedPage({
      start: afterSeq,
      limit,
      read: (after, count) => store.messages.list(agent.id, { afterSeq: after, limit: count }),
      cursorOf: (message) => message.seq,
    });
    return context.json({ messages: page.items, nextAfterSeq: page.next }, 200);
  });

  app.openapi(getContext, async (context) => {
    const { id } = context.req.valid("param");
    const agent = await requireAgent(store, context.get("tenantId"), id);
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
      parts: contextParts(projection, deps.runtime.tokenizer),
    };
    return context.json(view, 200);
  });

  app.openapi(compact, async (context) => {
    const { id } = context.req.valid("param");
    const agent = await requireAgent(store, context.get("tenantId"), id);
    const body = context.req.valid("json");
    const run = await deps.runControl.admitCompaction(
      agent.id,
      body?.strategy ? { strategy: body.strategy } : {},
    );
    deps.metrics.runtime.runAdmitted("compact", context.get("tenantId"));
    return context.json({ runId: run.id, queued: run.status === "queued" }, 202);
  });

  app.openapi(listCompactions, async (context) => {
    const { id } = context.req.valid("param");
    const agent = await requireAgent(store, context.get("tenantId"), id);
    const { offset = 0 } = context.req.valid("query");
    const compactions = await store.compactions.list(agent.id);
    // Coverage runs from each compaction's predecessor, so it is worked out over the whole list.
    const coverage = await compactionCoverage(deps, agent.id, compactions);
    return context.json(
      {
        compactions: compactions
          .map((compaction, index) => ({ ...compaction, coverage: coverage[index] }))
          .slice(offset),
      },
      200,
    );
  });

  app.openapi(spawn, async (context) => {
    const { id } = context.req.valid("param");
    const agent = await requireAgent(store, context.get("tenantId"), id);
    const body = context.req.valid("json");
    for (const spec of body.agents) checkMessageSize(deps, spec.brief, `brief of ${spec.name}`);
    // Admitted like any run: behind an active run of the thread it waits its turn.
    const { run, agents } = await deps.runControl.admitSpawn(agent.id, body.agents);
    deps.metrics.runtime.runAdmitted("spawn", context.get("tenantId"));
    return context.json({ runId: run.id, agents, queued: run.status === "queued" }, 201);
  });

  app.openapi(history, async (context) => {
    const { id } = context.req.valid("param");
    const tenantId = context.get("tenantId");
    const agent = await requireAgent(store, tenantId, id);
    const thread = await requireThread(store, tenantId, agent.threadId);
    const { offset = 0, limit = PAGE_LIMITS.history.default } = context.req.valid("query");
    const file = historyFilePath(thread.workspaceDir, thread.id, agent.id);
    const page = await readHistoryPage(file, offset, limit);
    const view: HistoryView = {
      agentId: agent.id,
      file: page ? file : null,
      messages: page?.lines ?? [],
      nextOffset: page?.nextOffset ?? null,
    };
    return context.json(view, 200);
  });

  app.openapi(resolveApproval, async (context) => {
    const { id, callId } = context.req.valid("param");
    const agent = await requireAgent(store, context.get("tenantId"), id);
    const body = context.req.valid("json");
    const { rule } = await deps.runControl.resolveApproval({
      agentId: agent.id,
      callId,
      decision: body.decision,
      reason: body.reason,
      ...(body.rule ? { rule: body.rule } : {}),
    });
    return context.json({ ok: true as const, ...(rule ? { rule } : {}) }, 200);
  });

  return app;
}
