import { LongrunError } from "@longrun/protocol";
import type { RateRefusal, RequestRate, Tarpit } from "@longrun/runtime";
import type { Store } from "@longrun/store";
import type { Context, MiddlewareHandler } from "hono";
import { isMessagesPath } from "./anthropic-gateway/messages-error.ts";
import { bearerToken } from "./bearer-token.ts";
import type { TokenCache } from "./token-cache.ts";

/** What a request's token says: its tenant, its key (for revocation) and whether it is an admin key. */
export type AuthEnv = { Variables: { tenantId: string; keyId: string; admin: boolean } };

/**
 * Bearer tokens, stored hashed, each bound to one tenant, and each tenant's request rate. The same
 * token is accepted in `x-api-key` (Anthropic clients send their key there) and as `?token=` for the
 * dashboard. A token the store answered for in the last half second is refused from memory when its
 * tenant is over its rate (429) or the token was refused (401): a flooding tenant's refusals cost no
 * store read. Every request that goes on to a route is checked against the store, so a revoked key is
 * refused by every instance at once. A refusal for the rate is held in the tarpit before it is
 * answered: a client that loops on 429s comes back at about the tenant's rate.
 */
export function bearerAuth(
  tokens: TokenCache,
  rate: RequestRate,
  tarpit: Tarpit,
): MiddlewareHandler<AuthEnv> {
  return async (context, next) => {
    const token =
      bearerToken(context.req.header("authorization")) ??
      (context.req.header("x-api-key")?.trim() || undefined) ??
      context.req.query("token");
    if (!token) throw new LongrunError("unauthorized", "missing bearer token");
    const recent = tokens.recent(token);
    if (recent === null) throw new LongrunError("unauthorized", "invalid token");
    // Counted once: before the store read for a token in memory, after it for one that was not. A
    // request within the rate goes on at once (null); a refusal is held in the tarpit first.
    const refuse = async (tenantId: string, wait: number) => {
      await tarpit.hold(tenantId, wait);
      return rateLimited(context, rate.refusal(tenantId, wait));
    };
    const overRate = (tenantId: string) => {
      const wait = rate.take(tenantId);
      return wait > 0 ? refuse(tenantId, wait) : null;
    };
    const refused = recent ? overRate(recent.tenantId) : null;
    if (refused !== null) return refused;
    const key = await tokens.verify(token);
    if (!key) throw new LongrunError("unauthorized", "invalid token");
    const refusedNow = recent ? null : overRate(key.tenantId);
    if (refusedNow !== null) return refusedNow;
    context.set("tenantId", key.tenantId);
    context.set("keyId", key.keyId);
    context.set("admin", key.admin);
    await next();
  };
}

/**
 * The 429 of a tenant over its request rate, in the usual error body, written directly: no Error (its
 * stack capture was a visible part of each refusal's cost in a flood), no schema, a body of ~200 bytes.
 * Anthropic clients get theirs in Anthropic's shape through the error handler.
 */
function rateLimited(context: Context, refusal: RateRefusal): Response {
  if (isMessagesPath(context.req.path))
    throw new LongrunError("rate_limited", refusal.message, refusal.details, refusal.retryAfterMs);
  const body = `{"error":{"code":"rate_limited","message":${JSON.stringify(refusal.message)},"details":${JSON.stringify(refusal.details)}}}`;
  return context.body(body, 429, {
    "content-type": "application/json",
    "retry-after": String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000))),
  });
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
