import type { BusEvent, ModelInfo, OpsView, Readiness, UpstreamApi } from "@longrun/protocol";
import type { Coordinator, RunControl, RuntimeDeps } from "@longrun/runtime";
import type { Store } from "@longrun/store";
import type { Metrics } from "./metrics.ts";

/** A source of live events from every process (persisted already), parsed off the bus. */
export interface LiveEvents {
  subscribe(handler: (event: BusEvent) => void): () => void;
}

/** What a model needs set up in a new thread, given the thread's options. */
export interface ThreadModelSetup {
  model: string;
  workspaceDir: string;
  /** True when the thread names an existing folder (never seeded). */
  namedWorkspace: boolean;
  maxInputTokens?: number;
  simSteps?: number;
  simScript?: string;
  simReasoning?: boolean;
}

/**
 * The models threads may use, from configuration or the model endpoint (never from the test double:
 * the composition decides what the sim model offers).
 */
export interface ModelCatalog {
  list(): Promise<ModelInfo[]>;
  /**
   * Model-specific setup of a new thread: the model string and summarizer it runs with (the sim model
   * carries its script in the name) after seeding its workspace; null when the model needs none.
   */
  prepareThread?(setup: ThreadModelSetup): Promise<{ model: string; summarizerModel?: string } | null>;
}

/** Everything the HTTP API, the WebSocket server and the gateway need; composed by `longrun start|serve`. */
export interface ServerDeps {
  mode: "embedded" | "distributed";
  store: Store;
  runtime: RuntimeDeps;
  runControl: RunControl;
  coordinator: Coordinator;
  live: LiveEvents;
  /** Publishes a cancel on the control channel so the worker running the step aborts it. */
  publishCancel(runId: string): Promise<void>;
  /** Queue, worker and breaker figures for GET /v1/ops; breakers of `tenantId`'s agents only. */
  ops(tenantId: string): Promise<Omit<OpsView, "failures" | "mode">>;
  /** Readiness of the external services (DB and its storage, Redis), each failure named; within a second. */
  ready(): Promise<Readiness>;
  metrics: Metrics;
  /** A token that may read /metrics besides admin keys (LONGRUN_METRICS_TOKEN). */
  metricsToken?: string;
  /**
   * Model and window for threads that do not name their own; the wire format and thinking budget the
   * gateway's conversations call the upstream with (LONGRUN_UPSTREAM_API, LONGRUN_THINKING_BUDGET).
   */
  defaults: {
    model: string;
    maxInputTokens?: number;
    thinkingBudgetTokens?: number;
    upstreamApi?: UpstreamApi;
  };
  models: ModelCatalog;
  dataDir: string;
  workspaceRoots: string[];
  /** Built dashboard to serve at `/` (absent: the API only). */
  dashboardDir?: string;
  /** Largest request body accepted, in bytes (default 2 MiB). */
  bodyLimitBytes?: number;
  /** Longest user message or brief accepted, in characters (LONGRUN_MAX_MESSAGE_CHARS; default 200,000). */
  maxMessageChars?: number;
}

/** The default of ServerDeps.maxMessageChars. */
export const DEFAULT_MAX_MESSAGE_CHARS = 200_000;
