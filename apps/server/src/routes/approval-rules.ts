import { createRoute } from "@hono/zod-openapi";
import {
  ApprovalRule,
  ApprovalRuleList,
  ApprovalRuleQuery,
  CreateApprovalRuleBody,
  Id,
  LongrunError,
} from "@longrun/protocol";
import { z } from "zod";
import { requireThread } from "../auth.ts";
import {
  AUTH_ERRORS,
  BEARER,
  BODY_ERRORS,
  createRouter,
  errors,
  jsonBody,
  jsonResponse,
} from "../contract.ts";
import type { ServerDeps } from "../server-deps.ts";

const tags = ["approvals"];

const listRules = createRoute({
  method: "get",
  path: "/",
  operationId: "listApprovalRules",
  summary: "The tenant's live approval rules, oldest first (with threadId: those that apply to it)",
  tags,
  security: BEARER,
  request: { query: ApprovalRuleQuery },
  responses: {
    200: jsonResponse("The live rules", ApprovalRuleList),
    ...errors({
      ...AUTH_ERRORS,
      400: "a query parameter is out of its bounds",
      404: "no such thread in your tenant",
    }),
  },
});

const createRule = createRoute({
  method: "post",
  path: "/",
  operationId: "createApprovalRule",
  summary: "An approval rule made ahead of any call: later matching calls are approved without asking",
  tags,
  security: BEARER,
  request: { body: jsonBody(CreateApprovalRuleBody) },
  responses: {
    201: jsonResponse("The rule", ApprovalRule),
    ...errors({
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      400: `${BODY_ERRORS[400]}; scope thread without a threadId`,
      404: "no such thread in your tenant",
    }),
  },
});

const revokeRule = createRoute({
  method: "delete",
  path: "/{id}",
  operationId: "revokeApprovalRule",
  summary: "Revokes an approval rule: calls it would have approved are asked about again",
  tags,
  security: BEARER,
  request: { params: z.object({ id: Id }) },
  responses: {
    200: jsonResponse("The revoked rule", ApprovalRule),
    ...errors({
      ...AUTH_ERRORS,
      400: "the id is malformed",
      404: "no live rule with that id in your tenant",
    }),
  },
});

/** Approval rules: list, create, revoke (a decision can also make one: POST …/approvals/{callId}). */
export function approvalRuleRoutes(deps: ServerDeps) {
  const { store } = deps;
  const app = createRouter();
  app.openapi(listRules, async (context) => {
    const tenantId = context.get("tenantId");
    const { threadId } = context.req.valid("query");
    // Rules are read by tenant: another tenant's thread id just finds none.
    const rules = await store.approvalRules.list(tenantId, threadId ? { threadId } : {});
    return context.json({ rules }, 200);
  });
  app.openapi(createRule, async (context) => {
    const tenantId = context.get("tenantId");
    const body = context.req.valid("json");
    if (body.scope === "thread" && !body.threadId)
      throw new LongrunError("bad_request", "a rule of scope thread names its threadId");
    if (body.scope === "thread" && body.threadId) await requireThread(store, tenantId, body.threadId);
    const rule = await store.approvalRules.create({
      tenantId,
      threadId: body.scope === "thread" ? (body.threadId ?? null) : null,
      toolName: body.toolName,
      pattern: body.pattern,
    });
    return context.json(rule, 201);
  });
  app.openapi(revokeRule, async (context) => {
    const { id } = context.req.valid("param");
    return context.json(await store.approvalRules.revoke(context.get("tenantId"), id), 200);
  });
  return app;
}
