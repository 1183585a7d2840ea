import { z } from "zod";

/** What one tenant may use at once; a request over a limit is answered 429 with `Retry-After`. */
export interface TenantLimits {
  /** Threads with a run under way (running, waiting, stuck) at once; a new run past it is refused. */
  maxRunningRuns: number;
  /** Runs queued behind another run of their thread, across the tenant's threads. */
  maxQueuedRuns: number;
  /** Sustained API requests per second (a token bucket refilled at this rate). */
  requestsPerSecond: number;
  /** Requests allowed in a burst above the rate (the bucket's size). */
  requestBurst: number;
}

/**
 * Defaults far above what one person at a dashboard, a CLI or an SDK script reaches (the dashboard
 * polls a few requests a second; one user runs a handful of threads), so a single-user `npm start`
 * never meets them, while a tenant flooding the server is stopped long before it starves the others.
 */
export const DEFAULT_TENANT_LIMITS: TenantLimits = {
  maxRunningRuns: 32,
  maxQueuedRuns: 128,
  requestsPerSecond: 50,
  requestBurst: 200,
};

/** Per-tenant overrides as configured (LONGRUN_TENANT_LIMITS): `{"tenant": {"maxRunningRuns": 4}}`. */
export const TenantLimitOverrides = z.record(
  z.string().min(1),
  z
    .object({
      maxRunningRuns: z.number().int().min(1),
      maxQueuedRuns: z.number().int().min(0),
      requestsPerSecond: z.number().positive(),
      requestBurst: z.number().int().min(1),
    })
    .partial()
    .strict(),
);
export type TenantLimitOverrides = z.infer<typeof TenantLimitOverrides>;

/** The limits of every tenant: one default, and overrides by tenant id. */
export interface TenantLimitsConfig {
  defaults: TenantLimits;
  overrides: TenantLimitOverrides;
}

/** A tenant's limits: its overrides over the defaults. */
export function limitsOf(config: TenantLimitsConfig, tenantId: string): TenantLimits {
  return { ...config.defaults, ...config.overrides[tenantId] };
}
