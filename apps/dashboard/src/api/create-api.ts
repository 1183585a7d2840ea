import { createClient } from "@longrun/client";
import type { LongrunApi } from "./api-types.ts";

/** The SDK client for this page's server; the only place the dashboard touches `@longrun/client`. */
export function createApi(baseUrl: string, token: string): LongrunApi {
  return createClient({ baseUrl, token });
}

/** True when the server rejected the token (so the user is asked for another). */
export function isUnauthorized(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const fields = error as { status?: unknown; code?: unknown };
  return fields.status === 401 || fields.code === "unauthorized";
}
