import type { OpsView } from "@longrun/protocol";
import type { Coordinator, RunControl, RuntimeDeps } from "@longrun/runtime";
import type { Store } from "@longrun/store";
import type { Metrics } from "./metrics.ts";

/** A source of live events from every process (persisted already). */
export interface LiveEvents {
  subscribe(handler: (event: unknown) => void): () => void;
}

/** Everything the HTTP API and the gateway need; composed by `longrun start|serve`. */
export interface ServerDeps {
  mode: "embedded" | "distributed";
  store: Store;
  runtime: RuntimeDeps;
  runControl: RunControl;
  coordinator: Coordinator;
  live: LiveEvents;
  /** Publishes a cancel on the control channel so the worker running the step aborts it. */
  publishCancel(runId: string): Promise<void>;
  /** Queue, worker and breaker figures for GET /v1/ops. */
  ops(tenantId?: string): Promise<Omit<OpsView, "failures" | "mode">>;
  /** Readiness of the external services (DB, Redis). */
  ready(): Promise<{ ok: boolean; checks: Record<string, boolean> }>;
  metrics: Metrics;
  /** Model and window for threads that do not name their own. */
  defaults: { model: string; maxInputTokens?: number };
  dataDir: string;
  workspaceRoots: string[];
  /** Built dashboard to serve at `/` (absent: the API only). */
  dashboardDir?: string;
  /** Largest request body accepted, in bytes. */
  bodyLimitBytes?: number;
}
