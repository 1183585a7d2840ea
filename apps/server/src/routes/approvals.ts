import { createRoute } from "@hono/zod-openapi";
import { ApprovalInbox, ApprovalInboxQuery } from "@longrun/protocol";
import { AUTH_ERRORS, BEARER, createRouter, errors, jsonResponse } from "../contract.ts";
import type { ServerDeps } from "../server-deps.ts";

const inbox = createRoute({
  method: "get",
  path: "/",
  operationId: "listPendingApprovals",
  summary: "The tenant's undecided approvals across threads, oldest first (the approvals inbox)",
  tags: ["approvals"],
  security: BEARER,
  request: { query: ApprovalInboxQuery },
  responses: {
    200: jsonResponse("Calls waiting for a decision, with their thread and agent names", ApprovalInbox),
    ...errors({ ...AUTH_ERRORS, 400: "a query parameter is out of its bounds" }),
  },
});

/** Approvals across threads: what is waiting for a person. */
export function approvalRoutes(deps: ServerDeps) {
  const { store } = deps;
  const app = createRouter();
  app.openapi(inbox, async (context) => {
    const { limit = 200 } = context.req.valid("query");
    const pending = await store.approvals.forTenant(context.get("tenantId"), { pending: true, limit });
    const agentIds = [...new Set(pending.map((approval) => approval.agentId))];
    const agents = new Map(
      (await Promise.all(agentIds.map((agentId) => store.agents.get(agentId)))).flatMap((agent) =>
        agent ? [[agent.id, agent] as const] : [],
      ),
    );
    const threadIds = [...new Set([...agents.values()].map((agent) => agent.threadId))];
    const threads = new Map(
      (await Promise.all(threadIds.map((threadId) => store.threads.get(threadId)))).flatMap((thread) =>
        thread ? [[thread.id, thread] as const] : [],
      ),
    );
    // A call left undecided by a cancelled run waits for nobody: only agents parked on a decision count.
    const approvals = pending.flatMap((approval) => {
      const agent = agents.get(approval.agentId);
      const thread = agent ? threads.get(agent.threadId) : undefined;
      if (!agent || !thread || agent.status !== "waiting_approval") return [];
      return [{ ...approval, threadTitle: thread.title, agentName: agent.name }];
    });
    return context.json({ approvals }, 200);
  });
  return app;
}
