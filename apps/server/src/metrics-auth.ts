import { timingSafeEqual } from "node:crypto";
import { LongrunError } from "@longrun/protocol";
import type { Store } from "@longrun/store";
import type { MiddlewareHandler } from "hono";
import { bearerToken } from "./bearer-token.ts";

/**
 * `/metrics` counts every tenant's work, so a tenant's ordinary token must not read it: the scraper
 * sends `LONGRUN_METRICS_TOKEN` (when set) or an admin key, as `Authorization: Bearer`.
 */
export function metricsAuth(store: Store, metricsToken: string | undefined): MiddlewareHandler {
  return async (context, next) => {
    const token = bearerToken(context.req.header("authorization"));
    if (!token)
      throw new LongrunError("unauthorized", "missing bearer token (LONGRUN_METRICS_TOKEN or an admin key)");
    if (metricsToken === undefined || !sameToken(token, metricsToken)) {
      const key = await store.apiKeys.verify(token);
      if (!key) throw new LongrunError("unauthorized", "invalid token");
      if (!key.admin)
        throw new LongrunError("forbidden", "/metrics needs LONGRUN_METRICS_TOKEN or an admin token");
    }
    await next();
  };
}

/** Compares in constant time (the length alone may differ fast: it is no secret). */
export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
