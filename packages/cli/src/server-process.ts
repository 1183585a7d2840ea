import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { publishCancel } from "@longrun/queue";
import { createMetrics, type RunningServer, startServer } from "@longrun/server";
import { collectOps, type Infrastructure, type Runtime } from "./compose.ts";
import type { Config } from "./config/load-config.ts";
import { createLiveEvents } from "./live-events.ts";
import { endpointModelCatalog, simModelCatalog } from "./model-catalog.ts";

/** The built dashboard, served at `/` when present. */
export const DASHBOARD_DIR = fileURLToPath(new URL("../../../apps/dashboard/dist", import.meta.url));

/** Starts the HTTP API + gateway over the given infrastructure (both modes). */
export async function startApi(
  infra: Infrastructure,
  runtime: Runtime,
  config: Config,
  mode: "embedded" | "distributed",
  /** Each dependency's problem, null when it is fine. */
  readyChecks: () => Promise<Record<string, string | null>>,
): Promise<RunningServer & { stop(): Promise<void> }> {
  const live = await createLiveEvents(infra.bus);
  const defaultModel = config.model ?? (config.openaiBaseUrl ? "gpt-4o-mini" : "sim");
  // Anthropic without an OpenAI endpoint: the models named in LONGRUN_MODELS / LONGRUN_MODEL.
  const anthropicOnly =
    !config.openaiBaseUrl && config.upstreamApi === "anthropic-messages" && !!config.anthropicApiKey;
  // The sim is the model exactly when no endpoint is configured (embedded, or LONGRUN_SIM_URL).
  const models =
    config.openaiBaseUrl || anthropicOnly
      ? endpointModelCatalog({
          client: infra.model,
          defaultModel,
          configured: anthropicOnly && config.models.length === 0 ? [defaultModel] : config.models,
          upstreamApi: config.upstreamApi,
        })
      : simModelCatalog(config.upstreamApi);
  const server = await startServer(
    {
      mode,
      store: infra.store,
      runtime: runtime.deps,
      runControl: runtime.runControl,
      coordinator: runtime.coordinator,
      live,
      publishCancel: (runId) => publishCancel(infra.bus, runId),
      ops: (tenantId) => collectOps(infra, runtime, tenantId),
      ready: async () => {
        const found = Object.entries(await readyChecks());
        const problems = Object.fromEntries(
          found.filter((entry): entry is [string, string] => entry[1] !== null),
        );
        const checks = Object.fromEntries(found.map(([name, problem]) => [name, problem === null]));
        return {
          ok: Object.keys(problems).length === 0,
          checks,
          ...(found.some(([, p]) => p) ? { problems } : {}),
        };
      },
      metrics: infra.metrics ?? createMetrics(),
      ...(config.metricsToken ? { metricsToken: config.metricsToken } : {}),
      defaults: {
        model: defaultModel,
        maxInputTokens: config.maxInputTokens,
        thinkingBudgetTokens: config.thinkingBudgetTokens,
        upstreamApi: config.upstreamApi,
      },
      models,
      maxMessageChars: config.maxMessageChars,
      dataDir: config.dataDir,
      workspaceRoots: config.workspaceRoots,
      dashboardDir: existsSync(DASHBOARD_DIR) ? DASHBOARD_DIR : undefined,
    },
    { port: config.port, host: config.host },
  );
  return {
    ...server,
    async stop() {
      await server.close();
      await live.close();
    },
  };
}
