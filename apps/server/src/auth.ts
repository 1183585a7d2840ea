import { LongrunError } from "@longrun/protocol";
import type { Store } from "@longrun/store";
import type { MiddlewareHandler } from "hono";
import { bearerToken } from "./bearer-token.ts";

/** What a request's token says: its tenant, its key (for revocation) and whether it is an admin key. */
export type AuthEnv = { Variables: { tenantId: string; keyId: string; admin: boolean } };

/**
 * Bearer tokens, stored hashed, each bound to one tenant. The same token is accepted in `x-api-key`
 * (Anthropic clients send their key there) and as `?token=` for the dashboard. Every request is
 * checked against the store (no cache), so a revoked key is refused by every instance at once.
 */
export function bearerAuth(store: Store): MiddlewareHandler<AuthEnv> {
  return async (context, next) => {
    const token =
      bearerToken(context.req.header("authorization")) ??
      (context.req.header("x-api-key")?.trim() || undefined) ??
      context.req.query("token");
    if (!token) throw new LongrunError("unauthorized", "missing bearer token");
    const key = await store.apiKeys.verify(token);
    if (!key) throw new LongrunError("unauthorized", "invalid token");
    context.set("tenantId", key.tenantId);
    context.set("keyId", key.keyId);
    context.set("admin", key.admin);
    await next();
  };
}

/** Throws not_found unless the thread exists and belongs to the tenant (no existence leak across tenants). */
export async function requireThread(store: Store, tenantId: string, threadId: string) {
  const thread = await store.threads.get(threadId);
  if (!thread || thread.tenantId !== tenantId)
    throw new LongrunError("not_found", `thread ${threadId} not found`);
  return thread;
}

/** Same for an agent, through its thread. */
export async function requireAgent(store: Store, tenantId: string, agentId: string) {
  const agent = await store.agents.get(agentId);
  if (!agent) throw new LongrunError("not_found", `agent ${agentId} not found`);
  await requireThread(store, tenantId, agent.threadId).catch(() => {
    throw new LongrunError("not_found", `agent ${agentId} not found`);
  });
  return agent;
}
