import { z } from "zod";
import type { BackoffOptions } from "./backoff.ts";
import { LongrunError } from "./errors.ts";
import type { WebSocketConstructor } from "./websocket-like.ts";

export interface ClientOptions {
  /** Server origin, e.g. `http://127.0.0.1:8787`. Default `LONGRUN_URL`, else `http://127.0.0.1:8787`. */
  baseUrl?: string;
  /** Bearer token. Default `LONGRUN_TOKEN` (what `npm start` prints). */
  token?: string;
  /** Milliseconds one REST attempt may take. Default 60 s. */
  timeout?: number;
  /** Retries of an idempotent call after a 429, a 5xx or a network failure. Default 2. */
  maxRetries?: number;
  /** Default `globalThis.WebSocket`, else (Node 20 has none) the `ws` package's. */
  WebSocket?: WebSocketConstructor;
  /** Default the global `fetch`. */
  fetch?: typeof fetch;
  /** Socket URL; default `baseUrl` with ws(s): and `/v1/ws?token=…` (browsers cannot set headers). */
  wsUrl?: string;
  reconnect?: Partial<BackoffOptions>;
  /** Reconnect when the server is silent this long (it sends heartbeats). Default 45 s. */
  idleTimeoutMs?: number;
  /** Default 30 s. */
  commandTimeoutMs?: number;
}

const milliseconds = z.number().int().positive();
const OptionsSchema = z.strictObject({
  baseUrl: z.url().optional(),
  token: z.string().min(1).optional(),
  timeout: milliseconds.optional(),
  maxRetries: z.number().int().min(0).max(10).optional(),
  WebSocket: z.custom<WebSocketConstructor>((value) => typeof value === "function").optional(),
  fetch: z.custom<typeof fetch>((value) => typeof value === "function").optional(),
  wsUrl: z.url().optional(),
  reconnect: z
    .strictObject({ initialDelayMs: milliseconds.optional(), maxDelayMs: milliseconds.optional() })
    .optional(),
  idleTimeoutMs: milliseconds.optional(),
  commandTimeoutMs: milliseconds.optional(),
});

/** Options after validation and defaults. */
export type ResolvedOptions = Omit<ClientOptions, "baseUrl" | "token" | "timeout" | "maxRetries"> & {
  baseUrl: string;
  token: string;
  timeout: number;
  maxRetries: number;
};

/**
 * Checks the options a program passed, refusing unknown keys (a misspelled `maxRetry` must not be silently
 * ignored), and fills the defaults from the environment where there is one.
 */
export function resolveOptions(options: ClientOptions = {}): ResolvedOptions {
  const parsed = OptionsSchema.safeParse(options);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      if (issue.code === "unrecognized_keys") {
        const where = issue.path.length > 0 ? `${issue.path.join(".")}.` : "";
        return `unknown option ${issue.keys.map((key) => `"${where}${key}"`).join(", ")} (known: ${Object.keys(
          issue.path[0] === "reconnect" ? { initialDelayMs: 0, maxDelayMs: 0 } : OptionsSchema.shape,
        ).join(", ")})`;
      }
      return `option "${issue.path.join(".")}": ${issue.message}`;
    });
    throw new LongrunError(`createClient: ${problems.join("; ")}`, { code: "bad_request" });
  }
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  const token = options.token ?? env.LONGRUN_TOKEN;
  if (!token)
    throw new LongrunError("createClient: no token: pass options.token or set LONGRUN_TOKEN", {
      code: "bad_request",
    });
  return {
    ...options,
    baseUrl: options.baseUrl ?? env.LONGRUN_URL ?? "http://127.0.0.1:8787",
    token,
    timeout: options.timeout ?? 60_000,
    maxRetries: options.maxRetries ?? 2,
  };
}
